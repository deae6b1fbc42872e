// The bisection the compression estimate and the predictors' local bound share (included
// by non_iid.hpp). The reference's search, step for step, so that the roots agree to the
// last bit: the bracket may shrink to nothing, the target may leave it, the midpoint may
// stop moving; each case ends the search as NIST's code ends it.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace ea {

namespace root_detail {
inline bool in_closed(double x, double a, double b) { return a > b ? (b <= x && x <= a) : (a <= x && x <= b); }
inline bool in_open(double x, double a, double b) { return a > b ? (b < x && x < a) : (a < x && x < b); }
}  // namespace root_detail

template <class F, class Ahead>
double decreasing_root(F f, double target, double low, double high, double fail, Ahead ahead) {
  using root_detail::in_closed;
  using root_detail::in_open;
  double lb = low, hb = high;
  double lval = std::numeric_limits<double>::infinity(), hval = -std::numeric_limits<double>::infinity();
  double p = (lb + hb) / 2.0;
  ahead(lb, p, hb);
  double fv = f(p);
  for (int j = 0; j < 1076; ++j) {
    if (close_enough(fv, target)) return p;
    if (target < fv) {
      lb = p;
      lval = fv;
    } else {
      hb = p;
      hval = fv;
    }
    if (lb >= hb) return std::min(std::max(lb, hb), high);
    if (!(in_closed(lb, low, high) && in_closed(hb, low, high))) return fail;
    if (!in_closed(target, lval, hval)) return fail;
    const double previous = p;
    p = (lb + hb) / 2.0;
    if (!in_open(p, lb, hb)) return hb;
    if (previous == p) return hb;
    ahead(lb, p, hb);
    fv = f(p);
    if (!in_closed(fv, lval, hval)) return hb;
  }
  return p;
}

template <class F>
double decreasing_root(F f, double target, double low, double high, double fail) {
  return decreasing_root(f, target, low, high, fail, [](double, double, double) {});
}

}  // namespace ea
