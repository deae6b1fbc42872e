# Writes generated/version.hpp from src/version.hpp.in with the git commit of the source
# tree (run at every build; the file changes only when the commit does).
# -D SOURCE_DIR, OUTPUT, PROJECT_VERSION, EA_BUILD_DEVICE, EA_BUILD_TYPE
set(EA_GIT_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE commit RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0)
    set(EA_GIT_COMMIT "${commit}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty STREQUAL "")
      set(EA_GIT_COMMIT "${EA_GIT_COMMIT}-modified")
    endif()
  endif()
endif()
configure_file("${SOURCE_DIR}/src/version.hpp.in" "${OUTPUT}" @ONLY)
