// A likely typo's intended name: the edit distance of two names, and the file beside a
// missing one that it most likely meant (the loader's "no such file" and the CLI's batch
// check name it).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ea {

// Levenshtein distance, an adjacent transposition counting as one edit.
size_t edit_distance(const std::string& a, const std::string& b);

// The name of `names` nearest to `typed`, 1 or 2 edits away, letter case aside ("philx":
// philox, "iidclaim": iidClaim; the first of equally near ones), else the one name whose start
// is all but the last two characters of `typed`, and at least 4 ("vali", "validationNo":
// validationNumber), or "".
std::string nearest_name(const std::string& typed, const std::vector<std::string>& names);

// A name of the same folder one or two edits from `missing`'s ("rand8_shrt.bin"), with
// `missing`'s folder part, or "" (none, a name under 4 characters, an unreadable folder, or
// a folder of more than 10,000 entries).
std::string near_file_name(const std::string& missing);

}  // namespace ea
