"""Golden-section search for the fit scripts (fit_moe_host.py, fit_compile_step_host.py): the x in
[lo, hi] that minimises a unimodal f, to within tol; returns the midpoint of the last bracket."""
import math


def minimise(f, lo, hi, tol):
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = f(a), f(b)
    while hi - lo > tol:
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = f(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = f(b)
    return (lo + hi) / 2
