#include "result.hpp"

namespace ea {

namespace {

template <class... F>
struct Overload : F... {
  using F::operator()...;
};
template <class... F>
Overload(F...) -> Overload<F...>;

// Applies `f` to the assessed result (never called for other statuses).
template <class F>
auto visit_assessed(const ItemResult& r, F f) {
  if (const Assessment* a = r.iid()) return f(*a);
  if (const RestartAssessment* rs = r.restart()) return f(*rs);
  if (const NonIidAssessment* n = r.non_iid()) return f(*n);
  throw Error(ErrorKind::Internal, "a result without an assessment was asked for its verdict");
}

}  // namespace

const char* track_name(Track t) { return t == Track::Restart ? "Restart" : t == Track::NonIid ? "Non-IID" : "IID"; }

const char* track_choice_name(TrackChoice t) {
  return t == TrackChoice::Iid ? "iid" : t == TrackChoice::NonIid ? "non-iid" : "auto";
}

Track track_of(const Settings& s) {
  return s.restart ? Track::Restart : s.track == TrackChoice::NonIid ? Track::NonIid : Track::Iid;
}

Verdict ItemResult::verdict() const {
  if (const Assessment* a = iid()) return a->verdict();
  throw Error(ErrorKind::Internal, "a result without an IID verdict was asked for one");
}

Check ItemResult::check() const {
  if (const RestartAssessment* r = restart()) return r->check();
  throw Error(ErrorKind::Internal, "a result without a pass/fail check was asked for one");
}

bool ItemResult::for_compliance() const {
  return visit_assessed(*this, [](const auto& a) { return a.for_compliance(); });
}

uint64_t ItemResult::permutations_run() const {
  return visit_assessed(*this, Overload{
                                   [](const Assessment& a) -> uint64_t {
                                     return a.permutation.fast_permutations + a.permutation.compression_permutations;
                                   },
                                   [](const RestartAssessment& r) -> uint64_t {
                                     uint64_t n = 0;
                                     for (const auto* p : {&r.rows, &r.columns}) {
                                       if (*p) n += (*p)->permutation.fast_permutations + (*p)->permutation.compression_permutations;
                                     }
                                     return n;
                                   },
                                   [](const NonIidAssessment&) -> uint64_t { return 0; },
                               });
}

std::vector<std::pair<std::string, std::string>> ItemResult::warnings() const {
  std::vector<std::pair<std::string, std::string>> w;
  if (const Assessment* a = iid()) {
    for (const auto& x : a->warnings) w.emplace_back(a->path, x);
  } else if (const NonIidAssessment* n = non_iid()) {
    for (const auto& x : n->warnings) w.emplace_back(n->path, x);
  } else if (const RestartAssessment* r = restart()) {
    for (const auto* p : {&r->rows, &r->columns}) {
      if (*p) for (const auto& x : (*p)->warnings) w.emplace_back((*p)->path, x);
    }
  }
  return w;
}

}  // namespace ea
