// A manifest of noise sources (ea_iid source --manifest, docs/manifest.md): the document
// {"sources": [{...}, ...]}, each source with the field names of NIST's ESV registration
// (usnistgov/ESV-Server client/jsons/entropy-source-metadata.json: primaryNoiseSource,
// iidClaim, bitsPerSample, hminEstimate, conditioningComponent[] ...) and the paths as NIST's
// client names them (client/jsons/run.json: rawNoisePath, restartTestPath,
// unvettedConditionedPaths), relative to the manifest's folder. Read and checked whole
// before any work: every error names the source (index and name) and the field.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "assess.hpp"
#include "source.hpp"

namespace ea {

// The fields of NIST's ESV registration a manifest may give that the assessment does not use
// (`ea_iid esv` copies them into the registration; absent: as docs/esv.md says).
struct ManifestRegistration {
  std::optional<bool> physical, additional_noise_sources;
  std::optional<int64_t> restarts, samples_per_restart, oes;  // numberOfRestarts, samplesPerRestart, numberOfOEs
};

struct ManifestSource {
  size_t index = 0;              // its place in "sources"
  SourceSpec spec;               // name, paths (resolved), H_submitter, conditioning
  std::optional<int> bits;       // bitsPerSample (absent: inferred from the samples)
  std::optional<bool> iid_claim; // iidClaim: true, false (the non-IID track) or absent (auto)
  std::optional<SampleInput> sample_input;  // sampleFormat, selectBits, binBits (absent: u8)
  std::string stem;              // the name as a file name: DIR/STEM.json and DIR/STEM.html
  ManifestRegistration registration;
  // The track `ea_iid source` runs it on: non-IID for iidClaim false, else the IID tests decide.
  TrackChoice track() const { return iid_claim && !*iid_claim ? TrackChoice::NonIid : TrackChoice::Auto; }
  // "sources[2] (ring-osc-1)": how messages name it.
  std::string where() const;
};

struct Manifest {
  std::string path;    // as given
  std::string digest;  // SHA-256 of its bytes (hex): the JSONL rows' run.list
  std::vector<ManifestSource> sources;
};

// Reads and checks `path`. Throws Error{Usage} "PATH: sources[K] (NAME): FIELD: what is wrong"
// for a document that is not a manifest: not JSON, an unknown field, a value of the wrong
// type or range, a missing primaryNoiseSource or rawNoisePath, a file that does not exist
// (or a restart file that is not 1,000 x 1,000 samples), two sources of one name (or one
// file name), sequencePosition not 1..n, or h' given both ways or neither for a non-vetted
// component.
Manifest read_manifest(const std::string& path);
// The same for the manifest's text; relative paths are taken from `folder`.
Manifest parse_manifest(const std::string& text, const std::string& path, const std::string& folder);

// A source's name as a file name: every byte other than A-Z a-z 0-9 . _ - becomes '_', and a
// name that starts with '.' gets a '_' before it.
std::string manifest_stem(const std::string& name);

}  // namespace ea
