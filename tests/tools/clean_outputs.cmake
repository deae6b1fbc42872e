# Removes the JSON and JSONL files earlier test runs left in DIR, so that schema/outputs
# checks only what this run writes. cmake -D DIR=... -P clean_outputs.cmake
file(GLOB_RECURSE old LIST_DIRECTORIES false "${DIR}/*.json" "${DIR}/*.jsonl")
if(old)
  file(REMOVE ${old})
endif()
