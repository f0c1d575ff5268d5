"""IR of single PTX instructions, with the interpreter's semantics (ptx/ops_int.py, ops_float.py,
ops_cvt.py, ops_mem.py): integer results wrap, PTX's rules for shifts past the width and division
by zero are spelled out, float arithmetic rounds to nearest once (LLVM's fadd/fmul/fdiv/sqrt/fma
are IEEE operations, and nothing here allows reassociation or contraction), ``.ftz`` flushes f32
subnormals to signed zero, ``.sat`` clamps to [+0, 1] with NaN and -0 -> +0, min/max order -0
below +0, NaN results of f32 arithmetic and of conversions to f32 are the GPU's canonical
0x7fffffff (ptx/rounding.canonical; x86 would keep an operand's payload or give 0xffc00000),
float -> integer conversions saturate. tests/unit/sim/test_jit_ieee.py holds the two to it.
"""
from __future__ import annotations

import struct

from ..ptx import approx
from ..ptx.interp import LOCAL_WINDOW, WINDOW_SIZE
from ..ptx.parser import TYPE_SIZES, Operand
from ..ptx.types import types_in
from .prelude import ASSERTED, EXIT, FCODE, HOST_CALL
from .stack import e_rgpu
from .values import Body, Unsupported, bits_of, is_flt, ity, lty

FLT_MIN_BITS = {"f32": 0x00800000}
INT_ROUND = {"rni": "roundeven", "rzi": "trunc", "rmi": "floor", "rpi": "ceil"}
FCMP = {"eq": "oeq", "ne": "one", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "equ": "ueq", "neu": "une",
        "ltu": "ult", "leu": "ule", "gtu": "ugt", "geu": "uge", "num": "ord", "nan": "uno"}
ICMP_S = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "lo": "ult", "ls": "ule",
          "hi": "ugt", "hs": "uge"}
ICMP_U = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge", "lo": "ult", "ls": "ule",
          "hi": "ugt", "hs": "uge"}
SPACES = ("global", "shared", "local", "const", "param")


def reg_op(name: str) -> Operand:
    return Operand("reg", name)


def _type(ins) -> str:
    ts = types_in(ins.opcode.split("."))
    if not ts:
        raise Unsupported(f"{ins.opcode} without a type")
    return ts[-1]


def space_of(parts) -> str:
    for p in parts:
        if p in SPACES:
            return p
        if p.startswith("shared::"):
            return "shared"
    return "generic"


def emit(k, b: Body, pc: int, ins) -> None:
    parts = ins.opcode.split(".")
    base = parts[0]
    f = EMITTERS.get(base)
    if f is None:
        raise Unsupported(f"instruction {ins.opcode}")
    f(k, b, pc, ins, parts)


# -- floats -----------------------------------------------------------------------------------------
def _ftz(b: Body, x: str, t: str) -> str:
    if t != "f32":
        return x
    ax = b(f"call float @llvm.fabs.f32(float {x})")
    tiny = b(f"fcmp olt float {ax}, 0x3810000000000000")  # FLT_MIN
    z = b(f"call float @llvm.copysign.f32(float 0.0, float {x})")
    return b(f"select i1 {tiny}, float {z}, float {x}")


def _sat(b: Body, x: str, t: str) -> str:
    """[+0, 1]: NaN and -0 (ole 0.0 holds for it) give +0, as ops_float.saturate."""
    ty = lty(t)
    nan = b(f"fcmp uno {ty} {x}, {x}")
    lo = b(f"fcmp ole {ty} {x}, 0.0")
    hi = b(f"fcmp ogt {ty} {x}, 1.0")
    r = b(f"select i1 {hi}, {ty} 1.0, {ty} {x}")
    r = b(f"select i1 {lo}, {ty} 0.0, {ty} {r}")
    return b(f"select i1 {nan}, {ty} 0.0, {ty} {r}")


def _canon(b: Body, x: str, t: str) -> str:
    """An f32 NaN as the GPU's canonical 0x7fffffff (rounding.canonical); f64 NaNs are left as the
    host made them, as the interpreter leaves them. Selected as bits, so no float constant or
    operation can touch the payload. The fence hides where x came from: LLVM counts NaN payloads
    as unspecified; for a square root it rewrites this select as select(x < 0, NaN, sqrt(x)), and
    its x86 back end then drops the select, leaving x86's 0xffc00000."""
    if t != "f32":
        return x
    x = b(f"call float @llvm.arithmetic.fence.f32(float {x})")
    nan = b(f"fcmp uno float {x}, {x}")
    bits = b(f"bitcast float {x} to i32")
    return b(f"bitcast i32 {b(f'select i1 {nan}, i32 2147483647, i32 {bits}')} to float")


def _float_op(k, b, ins, parts, t, nargs, f, canon=True) -> None:
    mode = next((p for p in parts if p in DIRECTED), None)
    if mode is not None and t == "f64":
        f = _directed_f64(k, parts[0], mode)
    elif mode is not None:
        if t != "f32" or parts[0] not in DIRECTED_F32:
            raise Unsupported(f"directed rounding {ins.opcode}")
        f = DIRECTED_F32[parts[0]](mode)
    flush = "ftz" in parts and t == "f32"
    # NaN payloads of the operands cannot show in a result made canonical (codegen.lazy_nan_registers)
    xs = [k.get(b, o, t, raw=canon) for o in ins.operands[1:1 + nargs]]
    if flush:
        xs = [_ftz(b, x, t) for x in xs]
    r = f(b, lty(t), *xs)
    if flush:
        r = _ftz(b, r, t)
    if "sat" in parts:
        r = _sat(b, r, t)
    if canon and not (ins.operands[0].kind == "reg" and ins.operands[0].value in k.lazy_nan):
        r = _canon(b, r, t)
    k.set(b, ins.operands[0], t, r)


# -- f32 in a directed rounding mode (ptx/ops_float._sum_like, _fma, _unary; rounding.py) ----------------
# The interpreter's own algorithm, step for step: the operation in f64 (exact for products; a sum
# rounded to odd; a quotient or root rounded to nearest, which never lands on an f32 value unless
# the exact one is), then that f64 rounded to f32 in the mode (rounding.round_to), and in
# round-towards-minus an exact zero sum made -0 (rounding.rm_zero).
DIRECTED = ("rz", "rm", "rp")


def _ext(b, x):
    return b(f"fpext float {x} to double")


def _add_odd(b, x, y):
    """rounding.add_odd: x + y (f64) with the bits lost folded into the last one."""
    s = b(f"fadd double {x}, {y}")
    bb = b(f"fsub double {s}, {x}")
    sa = b(f"fsub double {s}, {bb}")
    e = b(f"fadd double {b(f'fsub double {x}, {sa}')}, {b(f'fsub double {y}, {bb}')}")
    bits = b(f"bitcast double {s} to i64")
    finite = b(f"fcmp olt double {b(f'call double @llvm.fabs.f64(double {s})')}, 0x7FF0000000000000")
    even = b(f"icmp eq i64 {b(f'and i64 {bits}, 1')}, 0")
    lost = b(f"fcmp une double {e}, 0.0")
    fix = b(f"and i1 {b(f'and i1 {lost}, {finite}')}, {even}")
    away = b(f"icmp eq i1 {b(f'fcmp ogt double {e}, 0.0')}, {b(f'fcmp ogt double {s}, 0.0')}")
    moved = b(f"select i1 {away}, i64 {b(f'add i64 {bits}, 1')}, i64 {b(f'sub i64 {bits}, 1')}")
    return b(f"bitcast i64 {b(f'select i1 {fix}, i64 {moved}, i64 {bits}')} to double")


def _round_to_f32(b, x, mode):
    """rounding.round_to(x, f32, mode): nearest first, then one step towards the mode's side when
    that passed the exact value."""
    r = b(f"fptrunc double {x} to float")
    bits = _directed_step(b, b(f"bitcast float {r} to i32"), "i32", b(f"fpext float {r} to double"), x, mode)
    return b(f"bitcast i32 {bits} to float")


def _directed_step(b, bits, it, back, x, mode):
    """The bits of a nearest-rounded float r (`back`: r as f64) moved one step as numpy's nextafter
    in rounding.round_to: towards zero (rz) when |r| > |x|, down (rm) when r > x, up (rp) when
    r < x. The steps never start at a zero of the wrong sign (r > x means x < 0, so r is negative
    or -0), so on the bits they are +-1."""
    neg = b(f"icmp slt {it} {bits}, 0")
    up, down = b(f"add {it} {bits}, 1"), b(f"sub {it} {bits}, 1")
    if mode == "rz":  # r is not zero, one step less in magnitude
        fix = b(f"fcmp ogt double {b(f'call double @llvm.fabs.f64(double {back})')}, "
                f"{b(f'call double @llvm.fabs.f64(double {x})')}")
        step = down
    elif mode == "rm":
        fix = b(f"fcmp ogt double {back}, {x}")
        step = b(f"select i1 {neg}, {it} {up}, {it} {down}")
    else:
        fix = b(f"fcmp olt double {back}, {x}")
        step = b(f"select i1 {neg}, {it} {down}, {it} {up}")
    return b(f"select i1 {fix}, {it} {step}, {it} {bits}")


def _rm_zero(b, r, exact, x, y):
    """rounding.rm_zero: an exact zero sum is -0 in round-towards-minus unless both terms are +0."""
    zx = b(f"icmp eq i64 {b(f'bitcast double {x} to i64')}, 0")
    zy = b(f"icmp eq i64 {b(f'bitcast double {y} to i64')}, 0")
    zero = b(f"fcmp oeq double {exact}, 0.0")
    plus = b(f"and i1 {zx}, {zy}")
    neg0 = b(f"and i1 {zero}, {b(f'xor i1 {plus}, true')}")
    return b(f"select i1 {neg0}, float -0.0, float {r}")


def _directed_sum(kind):
    def make(mode):
        def f(b, ty, x, y):
            x64, y64 = _ext(b, x), _ext(b, y)
            if kind == "sub":
                y64 = b(f"fneg double {y64}")
            s = _add_odd(b, x64, y64)
            r = _round_to_f32(b, s, mode)
            return _rm_zero(b, r, s, x64, y64) if mode == "rm" else r
        return f
    return make


def _directed_fma(mode):
    def f(b, ty, x, y, z):
        p = b(f"fmul double {_ext(b, x)}, {_ext(b, y)}")
        z64 = _ext(b, z)
        s = _add_odd(b, p, z64)
        r = _round_to_f32(b, s, mode)
        return _rm_zero(b, r, s, p, z64) if mode == "rm" else r
    return f


def _directed_f64_op(op):
    """mul, div: the f64 result (exact, or nearest) rounded to f32; rcp and sqrt likewise."""
    def make(mode):
        if op == "rcp":
            return lambda b, ty, x: _round_to_f32(b, b(f"fdiv double 1.0, {_ext(b, x)}"), mode)
        if op == "sqrt":
            return lambda b, ty, x: _round_to_f32(b, b(f"call double @llvm.sqrt.f64(double {_ext(b, x)})"), mode)
        return lambda b, ty, x, y: _round_to_f32(b, b(f"{op} double {_ext(b, x)}, {_ext(b, y)}"), mode)
    return make


DIRECTED_F32 = {"add": _directed_sum("add"), "sub": _directed_sum("sub"), "mul": _directed_f64_op("fmul"),
                "div": _directed_f64_op("fdiv"), "fma": _directed_fma, "mad": _directed_fma,
                "rcp": _directed_f64_op("rcp"), "sqrt": _directed_f64_op("sqrt")}


# f64 in a directed rounding mode: the interpreter's exact-rational result is IEEE's, which the
# host computes itself with AVX-512's per-instruction rounding (no MXCSR change, nothing for LLVM
# to reorder around); without AVX-512 such a kernel stays interpreted.
AVX512_ROUND = {"rn": 8, "rm": 9, "rp": 10, "rz": 11}  # _MM_FROUND_TO_* | _MM_FROUND_NO_EXC


AVX512_DECLS = {
    **{op: f"declare <2 x double> @llvm.x86.avx512.mask.{op}.sd.round(<2 x double>, <2 x double>, <2 x double>, "
           f"i8, i32)\n" for op in ("add", "sub", "mul", "div")},
    "sqrt": "declare <2 x double> @llvm.x86.avx512.mask.sqrt.sd(<2 x double>, <2 x double>, <2 x double>, i8, i32)\n",
    "fma": "declare double @llvm.x86.avx512.vfmadd.f64(double, double, double, i32)\n",
}


def _sd(b, op, mode, x, y):
    """One scalar AVX-512 operation (add, sub, mul, div, sqrt) on f64 rounded in `mode`."""
    vx = b(f"insertelement <2 x double> undef, double {x}, i32 0")
    vy = b(f"insertelement <2 x double> undef, double {y}, i32 0")
    name = "sqrt.sd" if op == "sqrt" else f"{op}.sd.round"
    r = b(f"call <2 x double> @llvm.x86.avx512.mask.{name}(<2 x double> {vx}, <2 x double> {vy}, "
          f"<2 x double> undef, i8 -1, i32 {AVX512_ROUND[mode]})")
    return b(f"extractelement <2 x double> {r}, i32 0")


def _directed_f64(k, base, mode):
    from .engine import host_has
    if not host_has("avx512f"):
        raise Unsupported(f"f64 in .{mode} on a host without AVX-512")
    # declared only where used: x86 intrinsics mean nothing to LLVM on another host
    k.decls.add(AVX512_DECLS["fma" if base in ("fma", "mad") else "div" if base == "rcp" else
                             base if base in AVX512_DECLS else "add"])
    if base in ("fma", "mad"):
        return lambda b, ty, x, y, z: b(f"call double @llvm.x86.avx512.vfmadd.f64(double {x}, double {y}, "
                                        f"double {z}, i32 {AVX512_ROUND[mode]})")
    if base == "sqrt":  # the lower lane of the second operand's root
        return lambda b, ty, x: _sd(b, "sqrt", mode, x, x)
    if base == "rcp":
        return lambda b, ty, x: _sd(b, "div", mode, dconst(1.0), x)
    if base in ("add", "sub", "mul", "div"):
        return lambda b, ty, x, y: _sd(b, base, mode, x, y)
    raise Unsupported(f"{base}.{mode}.f64")


def _minmax_f(b, ty, x, y, is_min, nan=False):
    """ops_float._minmax: a NaN operand yields the other (both NaN: a NaN, made canonical after;
    under .NaN any NaN operand yields a NaN); -0 is below +0 whichever operand it is, so equal
    operands (the same bits, or zeros of either sign) give their bits or'ed for min (either sign
    set) and and'ed for max (both set)."""
    better = b(f"fcmp {'olt' if is_min else 'ogt'} {ty} {y}, {x}")
    r = b(f"select i1 {better}, {ty} {y}, {ty} {x}")
    it = "i32" if ty == "float" else "i64"
    both = b(f"{'or' if is_min else 'and'} {it} {b(f'bitcast {ty} {x} to {it}')}, {b(f'bitcast {ty} {y} to {it}')}")
    same = b(f"fcmp oeq {ty} {x}, {y}")
    r = b(f"select i1 {same}, {ty} {b(f'bitcast {it} {both} to {ty}')}, {ty} {r}")
    xnan = b(f"fcmp uno {ty} {x}, 0.0")
    r = b(f"select i1 {xnan}, {ty} {y}, {ty} {r}")
    ynan = b(f"fcmp uno {ty} {y}, 0.0")
    r = b(f"select i1 {ynan}, {ty} {x}, {ty} {r}")
    if nan:
        anynan = b(f"fcmp uno {ty} {x}, {y}")
        r = b(f"select i1 {anynan}, {ty} {b(f'select i1 {xnan}, {ty} {x}, {ty} {y}')}, {ty} {r}")
    return r


def _signbit(b, ty, x, op):
    """abs clears the sign bit and neg flips it, NaN included (numpy's abs and negative)."""
    it, sign, rest = ("i32", "-2147483648", "2147483647") if ty == "float" else \
        ("i64", "-9223372036854775808", "9223372036854775807")
    i = b(f"bitcast {ty} {x} to {it}")
    i = b(f"and {it} {i}, {rest}") if op == "abs" else b(f"xor {it} {i}, {sign}")
    return b(f"bitcast {it} {i} to {ty}")


def dconst(v: float) -> str:
    """A double literal LLVM reads exactly."""
    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", v))[0]


FLOAT_BIN = {"add": "fadd", "sub": "fsub", "mul": "fmul", "div": "fdiv"}


def e_float(k, b, pc, ins, parts, t) -> None:
    base = parts[0]
    sfx = "f32" if t == "f32" else "f64"
    if base in FLOAT_BIN:
        _float_op(k, b, ins, parts, t, 2, lambda b, ty, x, y: b(f"{FLOAT_BIN[base]} {ty} {x}, {y}"))
    elif base in ("fma", "mad"):
        _float_op(k, b, ins, parts, t, 3, lambda b, ty, x, y, z: b(f"call {ty} @llvm.fma.{sfx}({ty} {x}, {ty} {y}, {ty} {z})"))
    elif base in ("min", "max"):
        if len(ins.operands) != 3:
            raise Unsupported(ins.opcode)
        _float_op(k, b, ins, parts, t, 2, lambda b, ty, x, y: _minmax_f(b, ty, x, y, base == "min", "NaN" in parts))
    elif base in ("abs", "neg"):
        _float_op(k, b, ins, parts, t, 1, lambda b, ty, x: _signbit(b, ty, x, base), canon=False)
    elif base == "sqrt":
        _float_op(k, b, ins, parts, t, 1, lambda b, ty, x: b(f"call {ty} @llvm.sqrt.{sfx}({ty} {x})"))
    elif base == "rcp":
        _float_op(k, b, ins, parts, t, 1, lambda b, ty, x: b(f"fdiv {ty} 1.0, {x}"))
    elif base == "rsqrt":
        _float_op(k, b, ins, parts, t, 1,
                  lambda b, ty, x: b(f"fdiv {ty} 1.0, {b(f'call {ty} @llvm.sqrt.{sfx}({ty} {x})')}"))
    elif base == "copysign":  # copysign d, a, b: b's magnitude, a's sign (ops_float.c_copysign)
        _float_op(k, b, ins, parts, t, 2, lambda b, ty, x, y: b(f"call {ty} @llvm.copysign.{sfx}({ty} {y}, {ty} {x})"),
                  canon=False)
    elif base in approx.FUNCS and t == "f32":
        _float_op(k, b, ins, parts, t, 1, lambda b, ty, x: _approx(b, base, x))
    else:
        raise Unsupported(ins.opcode)


class _LlvmOps(approx.Ops):
    """approx.Ops as LLVM f64 instructions: ptx/approx.py's sequence, operation for operation (no
    fast-math flag anywhere, so LLVM keeps each one as written)."""

    def __init__(self, b: Body):
        self.b = b

    def c(self, v):
        return dconst(v)

    def _f(self, op, x, y):
        return self.b(f"{op} double {x}, {y}")

    def add(self, x, y):
        return self._f("fadd", x, y)

    def sub(self, x, y):
        return self._f("fsub", x, y)

    def mul(self, x, y):
        return self._f("fmul", x, y)

    def div(self, x, y):
        return self._f("fdiv", x, y)

    def neg(self, x):
        return self.b(f"fneg double {x}")

    def _call(self, fn, *xs):
        return self.b(f"call double @llvm.{fn}.f64({', '.join(f'double {x}' for x in xs)})")

    def abs(self, x):
        return self._call("fabs", x)

    def copysign(self, x, y):
        return self._call("copysign", x, y)

    def rint(self, x):
        return self._call("roundeven", x)

    def floor(self, x):
        return self._call("floor", x)

    def lt(self, x, y):
        return self._f("fcmp olt", x, y)

    def le(self, x, y):
        return self._f("fcmp ole", x, y)

    def eq(self, x, y):
        return self._f("fcmp oeq", x, y)

    def isnan(self, x):
        return self._f("fcmp uno", x, x)

    def or_(self, m, n):
        return self.b(f"or i1 {m}, {n}")

    def sel(self, m, x, y):
        return self.b(f"select i1 {m}, double {x}, double {y}")

    def pow2(self, n):
        e = self.b(f"add i64 {self.b(f'fptosi double {n} to i64')}, 1023")
        return self.b(f"bitcast i64 {self.b(f'shl i64 {e}, 52')} to double")

    def frexp(self, x):
        bits = self.b(f"bitcast double {x} to i64")
        biased = self.b(f"and i64 {self.b(f'lshr i64 {bits}, 52')}, 2047")
        e = self.b(f"sub i64 {biased}, 1023")
        m = self.b(f"or i64 {self.b(f'and i64 {bits}, {(1 << 52) - 1}')}, {1023 << 52}")
        return self.b(f"bitcast i64 {m} to double"), self.b(f"sitofp i64 {e} to double")


def _approx(b: Body, name: str, x: str) -> str:
    """sin, cos, lg2, ex2, tanh .approx.f32 of float x: approx.py's f64 sequence, rounded to f32 once."""
    r = approx.FUNCS[name](_LlvmOps(b), b(f"fpext float {x} to double"))
    return b(f"fptrunc double {r} to float")


# -- integers -----------------------------------------------------------------------------------------
def _bin(k, b, ins, t, f, dst_t=None) -> None:
    d, x, y = ins.operands[:3]
    k.set(b, d, dst_t or t, f(k.get(b, x, t), k.get(b, y, t)))


HALVES = ("f16", "f16x2", "bf16", "bf16x2")


def e_arith(k, b, pc, ins, parts) -> None:
    t = _type(ins)
    if t in HALVES:
        return _half_arith(k, b, ins, parts, t)
    if is_flt(t):
        return e_float(k, b, pc, ins, parts, t)
    base = parts[0]
    w = bits_of(t)
    ty = ity(t)
    if "cc" in parts or base in ("addc", "subc", "madc"):
        return _carry(k, b, ins, parts, t)
    signed = t[0] == "s"
    if "sat" in parts:
        if t != "s32" or base not in ("add", "sub"):
            raise Unsupported(ins.opcode)

        def sat(x, y):
            x64, y64 = b(f"sext i32 {x} to i64"), b(f"sext i32 {y} to i64")
            r = b(f"{base} i64 {x64}, {y64}")
            r = b(f"select i1 {b(f'icmp sgt i64 {r}, 2147483647')}, i64 2147483647, i64 {r}")
            r = b(f"select i1 {b(f'icmp slt i64 {r}, -2147483648')}, i64 -2147483648, i64 {r}")
            return b(f"trunc i64 {r} to i32")
        return _bin(k, b, ins, t, sat)
    if base in ("add", "sub", "and", "or", "xor"):
        return _bin(k, b, ins, t, lambda x, y: b(f"{base} {ty} {x}, {y}"))
    if base == "mul" or base == "mad":
        wide = "wide" in parts
        hi = "hi" in parts
        x, y = k.get(b, ins.operands[1], t), k.get(b, ins.operands[2], t)
        ext = "sext" if signed else "zext"
        if wide or hi:
            w2 = 2 * w
            p = b(f"mul i{w2} {b(f'{ext} {ty} {x} to i{w2}')}, {b(f'{ext} {ty} {y} to i{w2}')}")
            if hi:
                p = b(f"trunc i{w2} {b(f'lshr i{w2} {p}, {w}')} to {ty}")
                rt = t
            else:
                rt = ("s" if signed else "u") + str(w2)
        else:
            p = b(f"mul {ty} {x}, {y}")
            rt = t
        if base == "mad":
            c = k.get(b, ins.operands[3], rt)
            p = b(f"add {ity(rt)} {p}, {c}")
        return k.set(b, ins.operands[0], rt, p)
    if base in ("div", "rem"):
        return _bin(k, b, ins, t, lambda x, y: _divrem(b, ty, x, y, signed, base == "rem"))
    if base in ("min", "max"):
        cmp = ("slt" if signed else "ult") if base == "min" else ("sgt" if signed else "ugt")

        def pick(x, y):
            return b(f"select i1 {b(f'icmp {cmp} {ty} {x}, {y}')}, {ty} {x}, {ty} {y}")
        if len(ins.operands) == 4:
            z = k.get(b, ins.operands[3], t)
            return _bin(k, b, ins, t, lambda x, y: pick(pick(x, y), z))
        return _bin(k, b, ins, t, pick)
    if base == "shl" or base == "shr":
        x = k.get(b, ins.operands[1], t)
        s = k.get(b, ins.operands[2], "u32")
        big = b(f"icmp uge i32 {s}, {w}")
        sc = b(f"select i1 {big}, i32 {w - 1}, i32 {s}")
        sc = b.resize(sc, 32, w)
        if base == "shl":
            r = b(f"select i1 {big}, {ty} 0, {ty} {b(f'shl {ty} {x}, {sc}')}")
        elif signed:
            r = b(f"ashr {ty} {x}, {sc}")
        else:
            r = b(f"select i1 {big}, {ty} 0, {ty} {b(f'lshr {ty} {x}, {sc}')}")
        return k.set(b, ins.operands[0], t, r)
    raise Unsupported(ins.opcode)


def e_fma(k, b, pc, ins, parts) -> None:
    t = _type(ins)
    if t in HALVES:
        return _half_arith(k, b, ins, parts, t)
    e_float(k, b, pc, ins, parts, t)


F16_MIN = "0x3F10000000000000"  # 2^-14 as an LLVM float literal


def _widen16(b, h16, brain):
    """16-bit float bits (i16) -> float, exactly: bf16 by a shift, f16 by F16C's conversion."""
    if brain:
        wide = b(f"zext i16 {h16} to i32")
        return b(f"bitcast i32 {b(f'shl i32 {wide}, 16')} to float")
    return b(f"fpext half {b(f'bitcast i16 {h16} to half')} to float")


def _narrow16(b, r, brain):
    """float -> 16-bit bits rounded to nearest-even (bf16 on the bits, as types.f32_to_bf16; NaNs are
    the caller's)."""
    if brain:
        bits = b(f"bitcast float {r} to i32")
        lsb = b(f"and i32 {b(f'lshr i32 {bits}, 16')}, 1")
        up = b(f"add i32 {b(f'add i32 {bits}, 32767')}, {lsb}")
        return b(f"trunc i32 {b(f'lshr i32 {up}, 16')} to i16")
    return b(f"bitcast half {b(f'fptrunc float {r} to half')} to i16")


def _half_arith(k, b, ins, parts, t) -> None:
    """add, sub, mul, fma of .f16 and .f16x2 (.rn, .ftz, .sat), and of .bf16 and .bf16x2 (.rn), as
    ops_float._arith computes them: each half widened to f32 (exact), the operation in f32, .ftz's
    flush of inputs and of the result rounded to f16 (ftz16), .sat, then rounded to f16 and a NaN
    made 0x7fff (pack), or to bf16 to nearest-even on the bits (types.f32_to_bf16), a NaN 0x7fff.
    Rounding the f32 result once more is what the interpreter does (and is correctly rounded: f32
    holds more than twice the precision of either). min and max (.ftz for f16, .NaN) the same way,
    as _minmax_f does f32's: their result is an operand, so the rounding changes nothing but a NaN."""
    from .engine import host_has
    base = parts[0]
    nargs = 3 if base == "fma" else 2
    brain = t.startswith("bf16")
    if base not in ("add", "sub", "mul", "fma", "min", "max") or any(p in DIRECTED for p in parts) \
            or len(ins.operands) != nargs + 1 or brain and any(p in parts for p in ("ftz", "sat", "relu")) \
            or base in ("min", "max") and any(p in parts for p in ("sat", "relu", "xorsign", "abs")):
        raise Unsupported(ins.opcode)
    if not brain and not host_has("f16c"):
        raise Unsupported("f16 arithmetic on a host without F16C")
    flush, sat = "ftz" in parts, "sat" in parts

    def flush16(x):
        tiny = b(f"fcmp olt float {b(f'call float @llvm.fabs.f32(float {x})')}, {F16_MIN}")
        return b(f"select i1 {tiny}, float {b(f'call float @llvm.copysign.f32(float 0.0, float {x})')}, float {x}")

    def widen(h16):
        return _widen16(b, h16, brain)

    def narrow(r):  # f32 -> 16-bit bits, rounded once
        return _narrow16(b, r, brain)

    def one(*h16):
        xs = [widen(h) for h in h16]
        if flush:
            xs = [flush16(x) for x in xs]
        if base == "fma":
            # ops_float._fma: the product exact in f64, the sum rounded to odd there; to f32 rounded
            # to odd again, then to f16 once (the host has no f64 -> f16 conversion)
            x, y, z = (b(f"fpext float {v} to double") for v in xs)
            r = _add_odd(b, b(f"fmul double {x}, {y}"), z)
            if flush:
                r = flush16(widen(narrow(_odd_f32(b, r))))
            elif sat:
                r = _sat(b, r, "f64")
            if not flush:
                r = _odd_f32(b, r)
        elif base in ("min", "max"):
            r = _minmax_f(b, "float", xs[0], xs[1], base == "min", "NaN" in parts)
        else:
            r = b(f"{FLOAT_BIN[base]} float {xs[0]}, {xs[1]}")
            if flush:
                r = flush16(widen(narrow(r)))
        if sat and (flush or base != "fma"):
            r = _sat(b, r, "f32")
        bits = narrow(r)
        if brain:
            return b(f"select i1 {b(f'fcmp uno float {r}, {r}')}, i16 32767, i16 {bits}")
        nan = b(f"icmp ugt i16 {b(f'and i16 {bits}, 32767')}, 31744")
        return b(f"select i1 {nan}, i16 32767, i16 {bits}")
    d, srcs = ins.operands[0], ins.operands[1:]
    if t in ("f16", "bf16"):
        return k.set(b, d, "b16", one(*(k.get(b, o, "b16") for o in srcs)))
    words = [k.get(b, o, "b32") for o in srcs]
    halves = []
    for sh in (0, 16):
        hs = [b(f"trunc i32 {b(f'lshr i32 {w}, {sh}')} to i16") for w in words]
        halves.append(b(f"zext i16 {one(*hs)} to i32"))
    k.set(b, d, "b32", b(f"or i32 {halves[0]}, {b(f'shl i32 {halves[1]}, 16')}"))


def _half_sign(k, b, ins, parts, t) -> None:
    """abs and neg of the 16-bit floats and their pairs: the sign bit cleared or flipped, NaN
    payloads kept (numpy's f16 <-> f32 conversions keep them, so the interpreter's do); .ftz of f16
    first makes a subnormal (exponent 0) the zero of its sign."""
    if parts[0] not in ("abs", "neg"):
        raise Unsupported(ins.opcode)
    w = 32 if t.endswith("x2") else 16
    x = k.get(b, ins.operands[1], f"b{w}")
    sign = 0x80008000 if w == 32 else 0x8000
    if "ftz" in parts and t.startswith("f16"):
        halves = [(0xFFFF, 0x7C00, 0x8000)] if w == 16 else [(0xFFFF, 0x7C00, 0x8000),
                                                             (0xFFFF0000, 0x7C000000, 0x80000000)]
        for whole, e, sg in halves:
            sub = b(f"icmp eq i{w} {b(f'and i{w} {x}, {e}')}, 0")
            x = b(f"select i1 {sub}, i{w} {b(f'and i{w} {x}, {_lit(~(whole & ~sg), w)}')}, i{w} {x}")
    r = b(f"and i{w} {x}, {_lit(~sign, w)}") if parts[0] == "abs" else b(f"xor i{w} {x}, {_lit(sign, w)}")
    k.set(b, ins.operands[0], f"b{w}", r)


def _carry(k, b, ins, parts, t) -> None:
    """add.cc, sub.cc, mad{.lo,.hi}.cc and addc, subc, madc: ops_int._carry_op and _mad_carry. The
    condition code is the thread's %CC (codegen: 0 at its start; check.py keeps these out of kernels
    with sync points, where it would have to be saved)."""
    base = parts[0]
    ty = ity(t)
    ut = "u" + t[1:]
    use = base in ("addc", "subc", "madc")
    cin = b(f"zext i1 {b('load i1, ptr %CC, align 1')} to {ty}") if use else "0"
    cin_set = b(f"icmp ne {ty} {cin}, 0") if use else "false"

    def carry_out(u, v):  # u < v, or u == v with a carry in
        tie = b(f"and i1 {b(f'icmp eq {ty} {u}, {v}')}, {cin_set}")
        return b(f"or i1 {b(f'icmp ult {ty} {u}, {v}')}, {tie}")
    if base in ("mad", "madc"):
        x, y = k.get(b, ins.operands[1], t), k.get(b, ins.operands[2], t)
        if "hi" in parts:
            w = bits_of(t)
            ext = "sext" if t[0] == "s" else "zext"
            wide = b(f"mul i{2 * w} {b(f'{ext} {ty} {x} to i{2 * w}')}, {b(f'{ext} {ty} {y} to i{2 * w}')}")
            p = b(f"trunc i{2 * w} {b(f'lshr i{2 * w} {wide}, {w}')} to {ty}")
        else:
            p = b(f"mul {ty} {x}, {y}")
        z = k.get(b, ins.operands[3], ut)
        r = b(f"add {ty} {b(f'add {ty} {p}, {z}')}, {cin}")
        cout = carry_out(r, p)
    else:
        x, y = k.get(b, ins.operands[1], ut), k.get(b, ins.operands[2], ut)
        if base in ("sub", "subc"):
            r = b(f"sub {ty} {b(f'sub {ty} {x}, {y}')}, {cin}")
            cout = carry_out(x, y)
        else:
            r = b(f"add {ty} {b(f'add {ty} {x}, {y}')}, {cin}")
            cout = carry_out(r, x)
    k.set(b, ins.operands[0], ut, r)
    if "cc" in parts:
        b.do(f"store i1 {cout}, ptr %CC, align 1")


def _divrem(b, ty, x, y, signed, rem) -> str:
    zero = b(f"icmp eq {ty} {y}, 0")
    if signed:
        m1 = b(f"icmp eq {ty} {y}, -1")
        safe = b(f"select i1 {b(f'or i1 {zero}, {m1}')}, {ty} 1, {ty} {y}")
        r = b(f"{'srem' if rem else 'sdiv'} {ty} {x}, {safe}")
        # x / -1 wraps (numpy's floor_divide gives INT_MIN for INT_MIN / -1), remainder 0
        r = b(f"select i1 {m1}, {ty} {'0' if rem else b(f'sub {ty} 0, {x}')}, {ty} {r}")
        return b(f"select i1 {zero}, {ty} {x if rem else '-1'}, {ty} {r}")
    safe = b(f"select i1 {zero}, {ty} 1, {ty} {y}")
    r = b(f"{'urem' if rem else 'udiv'} {ty} {x}, {safe}")
    return b(f"select i1 {zero}, {ty} {x if rem else '-1'}, {ty} {r}")


def e_unary(k, b, pc, ins, parts) -> None:
    t = _type(ins)
    base = parts[0]
    if t in ("f16", "bf16", "f16x2", "bf16x2"):
        return _half_sign(k, b, ins, parts, t)
    if is_flt(t):
        return e_float(k, b, pc, ins, parts, t)
    ty = ity(t)
    d, a = ins.operands[:2]
    x = k.get(b, a, t)
    if base == "abs":
        r = b(f"select i1 {b(f'icmp slt {ty} {x}, 0')}, {ty} {b(f'sub {ty} 0, {x}')}, {ty} {x}")
    elif base == "neg":
        r = b(f"sub {ty} 0, {x}")
    elif base == "not":
        r = b(f"xor {ty} {x}, {'true' if ty == 'i1' else -1}")
    elif base == "cnot":
        r = b(f"zext i1 {b(f'icmp eq {ty} {x}, 0')} to {ty}")
    elif base == "brev":
        r = b(f"call {ty} @llvm.bitreverse.{ty}({ty} {x})")
    elif base in ("popc", "clz"):
        r = b(f"call {ty} @llvm.ctpop.{ty}({ty} {x})") if base == "popc" else \
            b(f"call {ty} @llvm.ctlz.{ty}({ty} {x}, i1 false)")
        return k.set(b, d, "u32", b.resize(r, bits_of(t), 32))
    else:
        raise Unsupported(ins.opcode)
    k.set(b, d, t, r)


def e_bits(k, b, pc, ins, parts) -> None:
    """bfe, bfi, prmt, bfind (ops_int.py's rules)."""
    t = _type(ins)
    base = parts[0]
    w = bits_of(t)
    ty = ity(t)
    d = ins.operands[0]
    if base == "bfe":
        x = b.resize(k.get(b, ins.operands[1], t), w, 64, signed=t[0] == "s")
        pos = b(f"and i64 {b.resize(k.get(b, ins.operands[2], 'u32'), 32, 64)}, 255")
        ln = b(f"and i64 {b.resize(k.get(b, ins.operands[3], 'u32'), 32, 64)}, 255")
        pos = b(f"select i1 {b(f'icmp ugt i64 {pos}, 63')}, i64 63, i64 {pos}")
        ln = b(f"select i1 {b(f'icmp ugt i64 {ln}, 63')}, i64 63, i64 {ln}")
        m = b(f"sub i64 {b(f'shl i64 1, {ln}')}, 1")
        field = b(f"and i64 {b(f'ashr i64 {x}, {pos}')}, {m}")
        zero = b(f"icmp eq i64 {ln}, 0")
        if t[0] == "s":
            lm1 = b(f"select i1 {zero}, i64 0, i64 {b(f'sub i64 {ln}, 1')}")
            top = b(f"and i64 {b(f'lshr i64 {field}, {lm1}')}, 1")
            neg = b(f"and i1 {b(f'icmp eq i64 {top}, 1')}, {b(f'xor i1 {zero}, true')}")
            ext = b(f"or i64 {field}, {b(f'xor i64 {m}, -1')}")
            field = b(f"select i1 {neg}, i64 {ext}, i64 {field}")
        field = b(f"select i1 {zero}, i64 0, i64 {field}")
        return k.set(b, d, t, b.resize(field, 64, w))
    if base == "bfi":
        if w > 32:
            raise Unsupported(ins.opcode)
        x = b.resize(k.get(b, ins.operands[1], t), w, 64)
        y = b.resize(k.get(b, ins.operands[2], t), w, 64)
        pos = b(f"and i64 {b.resize(k.get(b, ins.operands[3], 'u32'), 32, 64)}, 255")
        ln = b(f"and i64 {b.resize(k.get(b, ins.operands[4], 'u32'), 32, 64)}, 255")
        ln = b(f"select i1 {b(f'icmp ugt i64 {ln}, {w}')}, i64 {w}, i64 {ln}")
        pc_ = b(f"select i1 {b(f'icmp ugt i64 {pos}, 63')}, i64 63, i64 {pos}")
        one = b(f"shl i64 1, {ln}")
        mask = b(f"shl i64 {b(f'sub i64 {one}, 1')}, {pc_}")
        keep = b(f"and i64 {y}, {b(f'xor i64 {mask}, -1')}")
        moved = b(f"and i64 {b(f'shl i64 {x}, {pc_}')}, {mask}")
        r = b(f"or i64 {keep}, {moved}")
        r = b(f"select i1 {b(f'icmp uge i64 {pos}, {w}')}, i64 {y}, i64 {r}")
        return k.set(b, d, t, b.resize(r, 64, w))
    if base == "prmt":
        if any(p in parts for p in ("f4e", "b4e", "rc8", "ecl", "rc16")):
            raise Unsupported(ins.opcode)
        a = b.resize(k.get(b, ins.operands[1], "b32"), 32, 64)
        hi = b.resize(k.get(b, ins.operands[2], "b32"), 32, 64)
        c = b.resize(k.get(b, ins.operands[3], "b32"), 32, 64)
        src = b(f"or i64 {a}, {b(f'shl i64 {hi}, 32')}")
        out = "0"
        for i in range(4):
            sel = b(f"and i64 {b(f'lshr i64 {c}, {4 * i}')}, 15")
            shift = b(f"mul i64 {b(f'and i64 {sel}, 7')}, 8")
            byte = b(f"and i64 {b(f'lshr i64 {src}, {shift}')}, 255")
            top = b(f"and i64 {byte}, 128")
            sign = b(f"select i1 {b(f'icmp ne i64 {top}, 0')}, i64 255, i64 0")
            high = b(f"icmp ne i64 {b(f'and i64 {sel}, 8')}, 0")
            byte = b(f"select i1 {high}, i64 {sign}, i64 {byte}")
            out = b(f"or i64 {out}, {b(f'shl i64 {byte}, {8 * i}')}")
        return k.set(b, d, "b32", b.resize(out, 64, 32))
    if base == "bfind":
        x = k.get(b, ins.operands[1], t)
        if t[0] == "s":
            x = b(f"select i1 {b(f'icmp slt {ty} {x}, 0')}, {ty} {b(f'xor {ty} {x}, -1')}, {ty} {x}")
        bl = b(f"sub i32 {w}, {b.resize(b(f'call {ty} @llvm.ctlz.{ty}({ty} {x}, i1 false)'), w, 32)}")
        pos = b(f"sub i32 {bl}, 1")
        none = b(f"icmp eq i32 {bl}, 0")
        if "shiftamt" in parts:
            pos = b(f"sub i32 {w - 1}, {pos}")
        return k.set(b, d, "u32", b(f"select i1 {none}, i32 -1, i32 {pos}"))
    raise Unsupported(ins.opcode)


def e_shf(k, b, pc, ins, parts) -> None:
    """shf.{l,r}.{wrap,clamp}: a funnel shift of hi:lo, the count wrapped to 5 bits or clamped at 32."""
    lo = b.resize(k.get(b, ins.operands[1], "u32"), 32, 64)
    hi = b.resize(k.get(b, ins.operands[2], "u32"), 32, 64)
    n = b.resize(k.get(b, ins.operands[3], "u32"), 32, 64)
    if "clamp" in parts:
        n = b(f"select i1 {b(f'icmp ugt i64 {n}, 32')}, i64 32, i64 {n}")
    else:
        n = b(f"and i64 {n}, 31")
    x = b(f"or i64 {lo}, {b(f'shl i64 {hi}, 32')}")
    r = b(f"lshr i64 {b(f'shl i64 {x}, {n}')}, 32") if "l" in parts else b(f"lshr i64 {x}, {n}")
    k.set(b, ins.operands[0], "b32", b.resize(r, 64, 32))


def e_isspacep(k, b, pc, ins, parts) -> None:
    space = "shared" if parts[1].startswith("shared") else parts[1]
    x = k.get(b, ins.operands[1], "u64")
    windows = {"shared": 0x7FFE_0000_0000, "local": 0x7FFD_0000_0000, "param": 0x7FFC_0000_0000}
    if space in windows:
        off = b(f"sub i64 {x}, {windows[space]}")
        r = b(f"icmp ult i64 {off}, {1 << 32}")
    else:
        r = b(f"icmp ult i64 {x}, {windows['param']}")
    k.set(b, ins.operands[0], "pred", r)


# -- compares, selects, conversions ---------------------------------------------------------------------
SET_TRUE = {"f32": 0x3F800000, "f16": 0x3C00, "bf16": 0x3F80}  # ops_float._SET_TRUE; integers: all ones


def e_set(k, b, pc, ins, parts) -> None:
    """set.cmp.dtype.stype: 1.0 (or all ones for an integer dtype) where the compare holds, else 0
    (ops_float.c_set); the packed x2 forms stay interpreted."""
    ts = types_in(parts)
    dt, t = ts[0], ts[-1]
    if len(ts) != 2 or t.endswith("x2") or dt not in ("u32", "s32", "b32", "f32", "u16", "s16", "f16", "bf16"):
        raise Unsupported(ins.opcode)
    r = _compare(k, b, ins, parts, t)
    w = 32 if dt in ("u32", "s32", "b32", "f32") else 16
    one = SET_TRUE.get(dt, (1 << w) - 1)
    k.set(b, ins.operands[0], f"b{w}", b(f"select i1 {r}, i{w} {_lit(one, w)}, i{w} 0"))


def _compare(k, b, ins, parts, t) -> str:
    """setp's and set's compare of operands 1 and 2, combined with operand 3 by .and/.or/.xor."""
    cmp = parts[1]
    bop = next((p for p in parts[2:] if p in ("and", "or", "xor")), None)
    r = _cmp2(k, b, cmp, t, ins.operands[1], ins.operands[2])
    if bop:
        r = b(f"{bop} i1 {r}, {k.get(b, ins.operands[3], 'pred')}")
    return r


def _cmp2(k, b, cmp, t, x, y) -> str:
    if t in ("f16", "bf16"):  # ops_float.compare: both widened to f32 (exactly), compared there
        xv, yv = (_half_to_f32(k, b, o, t) for o in (x, y))
        return b(f"fcmp {FCMP[cmp]} float {xv}, {yv}")
    if is_flt(t):
        xv, yv = k.get(b, x, t, raw=True), k.get(b, y, t, raw=True)
        return b(f"fcmp {FCMP[cmp]} {lty(t)} {xv}, {yv}")
    xv, yv = k.get(b, x, t), k.get(b, y, t)
    table = ICMP_S if t[0] == "s" else ICMP_U
    if cmp not in table:
        raise Unsupported(f"compare {cmp} of .{t}")
    return b(f"icmp {table[cmp]} {ity(t)} {xv}, {yv}")


def e_setp(k, b, pc, ins, parts) -> None:
    cmp = parts[1]
    t = _type(ins)
    bop = next((p for p in parts[2:] if p in ("and", "or", "xor")), None)
    d, x, y = ins.operands[:3]
    if t in ("f16", "bf16"):  # ops_float.compare: both widened to f32 (exactly), compared there
        xv, yv = (_half_to_f32(k, b, o, t) for o in (x, y))
        r = b(f"fcmp {FCMP[cmp]} float {xv}, {yv}")
    elif is_flt(t):
        xv, yv = k.get(b, x, t, raw=True), k.get(b, y, t, raw=True)
        r = b(f"fcmp {FCMP[cmp]} {lty(t)} {xv}, {yv}")
    else:
        xv, yv = k.get(b, x, t), k.get(b, y, t)
        table = ICMP_S if t[0] == "s" else ICMP_U
        if cmp not in table:
            raise Unsupported(ins.opcode)
        r = b(f"icmp {table[cmp]} {ity(t)} {xv}, {yv}")
    q = b(f"xor i1 {r}, true")
    if bop:
        c = k.get(b, ins.operands[3], "pred")
        r, q = b(f"{bop} i1 {r}, {c}"), b(f"{bop} i1 {q}, {c}")
    if d.kind == "vec":
        k.set(b, d.value[0], "pred", r)
        k.set(b, d.value[1], "pred", q)
    else:
        k.set(b, d, "pred", r)


def _half_to_f32(k, b, o, t) -> str:
    """An f16 or bf16 operand (bits) as the f32 it widens to exactly."""
    h = k.get(b, o, "b16")
    if t == "bf16":
        return b(f"bitcast i32 {b(f'shl i32 {b.resize(h, 16, 32)}, 16')} to float")
    from .engine import host_has
    if not host_has("f16c"):
        raise Unsupported("f16 compares on a host without F16C")
    return b(f"fpext half {b(f'bitcast i16 {h} to half')} to float")


TESTP_TINY = {"f32": "0x3810000000000000", "f64": "0x0010000000000000"}  # FLT_MIN, DBL_MIN


def e_testp(k, b, pc, ins, parts) -> None:
    """testp.{finite,infinite,number,notanumber,normal,subnormal} of f32/f64 (ops_float.c_testp)."""
    t = _type(ins)
    if not is_flt(t):
        raise Unsupported(ins.opcode)
    ty = lty(t)
    x = k.get(b, ins.operands[1], t, raw=True)
    ax = b(f"call {ty} @llvm.fabs.{'f32' if t == 'f32' else 'f64'}({ty} {x})")
    inf = "0x7FF0000000000000"
    kind = parts[1]
    if kind == "finite":
        r = b(f"fcmp olt {ty} {ax}, {inf}")
    elif kind == "infinite":
        r = b(f"fcmp oeq {ty} {ax}, {inf}")
    elif kind == "number":
        r = b(f"fcmp ord {ty} {x}, {x}")
    elif kind == "notanumber":
        r = b(f"fcmp uno {ty} {x}, {x}")
    elif kind == "normal":
        r = b(f"and i1 {b(f'fcmp olt {ty} {ax}, {inf}')}, {b(f'fcmp oge {ty} {ax}, {TESTP_TINY[t]}')}")
    elif kind == "subnormal":
        r = b(f"and i1 {b(f'fcmp olt {ty} {ax}, {TESTP_TINY[t]}')}, {b(f'fcmp one {ty} {x}, 0.0')}")
    else:
        raise Unsupported(ins.opcode)
    k.set(b, ins.operands[0], "pred", r)


def e_selp(k, b, pc, ins, parts) -> None:
    t = _type(ins)
    d, x, y, c = ins.operands[:4]
    xv, yv, cv = k.get(b, x, t), k.get(b, y, t), k.get(b, c, "pred")
    k.set(b, d, t, b(f"select i1 {cv}, {lty(t)} {xv}, {lty(t)} {yv}"))


def _to_int(b, v, dt, irnd) -> str:
    """An f64 value to integer type dt: rounded by irnd (default .rzi), saturated, NaN -> 0."""
    v = b(f"call double @llvm.{INT_ROUND[irnd or 'rzi']}.f64(double {v})")
    w = bits_of(dt)
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if dt[0] == "s" else (0, (1 << w) - 1)
    big = b(f"fcmp oge double {v}, {dconst(float(hi))}")
    small = b(f"fcmp ole double {v}, {dconst(float(lo))}")
    out = b(f"or i1 {b(f'or i1 {big}, {small}')}, {b(f'fcmp uno double {v}, 0.0')}")
    safe = b(f"select i1 {out}, double 0.0, double {v}")
    r = b(f"{'fptosi' if dt[0] == 's' else 'fptoui'} double {safe} to i{w}")
    r = b(f"select i1 {small}, i{w} {lo}, i{w} {r}")
    return b(f"select i1 {big}, i{w} {_lit(hi, w)}, i{w} {r}")


def e_cvt(k, b, pc, ins, parts) -> None:
    ts = types_in(parts)
    dt, at = ts[0], ts[-1]
    irnd = next((p for p in parts if p in INT_ROUND), None)
    frnd = next((p for p in parts if p in ("rn", "rz", "rm", "rp")), None)
    mode = frnd if frnd in DIRECTED else None
    if "f16" in (dt, at) or dt == "f16x2":
        return _cvt_f16(k, b, ins, parts, dt, at, irnd, mode)
    if "bf16" in (dt, at):
        return _cvt_bf16(k, b, ins, parts, dt, at, irnd, frnd)
    d, a = ins.operands[:2]
    x = k.get(b, a, at)
    if is_flt(at):
        if "ftz" in parts:
            x = _ftz(b, x, at)
        if not is_flt(dt):
            if "sat" in parts:
                raise Unsupported(ins.opcode)
            v = x if at == "f64" else b(f"fpext float {x} to double")
            return k.set(b, d, dt, _to_int(b, v, dt, irnd))
        if irnd:
            x = b(f"call {lty(at)} @llvm.{INT_ROUND[irnd]}.{at}({lty(at)} {x})")
        if dt == at:
            r = x  # in any mode: the value is one of the type's
        elif dt == "f64":
            r = b(f"fpext float {x} to double")
        elif mode:
            r = _round_to_f32(b, x, mode)  # ops_cvt._to_float: rounding.round_to
        else:
            r = b(f"fptrunc double {x} to float")
    elif is_flt(dt):
        if mode and dt == "f32":
            # ops_cvt._int_as_float: a 32-bit (or narrower) integer is exact in f64, then rounded
            # in the mode; a 64-bit one is rounded over rationals there
            if bits_of(at) > 32:
                raise Unsupported(f"directed rounding {ins.opcode}")
            r = _round_to_f32(b, b(f"{'sitofp' if at[0] == 's' else 'uitofp'} {ity(at)} {x} to double"), mode)
        elif mode and bits_of(at) > 32:
            raise Unsupported(f"directed rounding {ins.opcode}")
        else:  # f64 from 32 bits is exact in every mode
            r = b(f"{'sitofp' if at[0] == 's' else 'uitofp'} {ity(at)} {x} to {lty(dt)}")
    else:
        if "sat" in parts:
            raise Unsupported(ins.opcode)
        r = b.resize(x, bits_of(at), bits_of(dt), signed=at[0] == "s")
        return k.set(b, d, dt, r)
    if "ftz" in parts:
        r = _ftz(b, r, dt)
    if "sat" in parts:
        r = _sat(b, r, dt)
    k.set(b, d, dt, _canon(b, r, dt))  # an f32 NaN from a float source: canonical (ops_cvt._to_float)


def _odd_f32(b, x) -> str:
    """f64 -> f32 rounded to odd (rounding.f64_to_f32_odd): rounding it once more, to f16, gives
    the correctly rounded result of x itself."""
    r = b(f"fptrunc double {x} to float")
    back = b(f"fpext float {r} to double")
    bits = b(f"bitcast float {r} to i32")
    inexact = b(f"fcmp one double {back}, {x}")
    low = b(f"and i32 {bits}, 1")
    fix = b(f"and i1 {inexact}, {b(f'icmp eq i32 {low}, 0')}")
    up = b(f"fcmp ogt double {x}, {back}")
    grow = b(f"xor i1 {up}, {b(f'icmp slt i32 {bits}, 0')}")  # up from a positive, down from a negative
    step = b(f"select i1 {grow}, i32 {b(f'add i32 {bits}, 1')}, i32 {b(f'sub i32 {bits}, 1')}")
    return b(f"bitcast i32 {b(f'select i1 {fix}, i32 {step}, i32 {bits}')} to float")


def _cvt_f16(k, b, ins, parts, dt, at, irnd, mode) -> None:
    """cvt to or from f16 (held as bits in .b16 or .f16 registers; to f16x2 from two f32), as ops_cvt: the source exact in f64, rounded
    once to the destination (rounding.round_to), f16 NaNs canonical 0x7fff. The host's F16C
    instructions convert (engine.py compiles for the host CPU; without them LLVM would call
    runtime routines the JIT does not link)."""
    from .engine import host_has
    if not host_has("f16c"):
        raise Unsupported("f16 conversions on a host without F16C")
    d, a = ins.operands[:2]
    if "sat" in parts or "relu" in parts or (dt == at):
        raise Unsupported(ins.opcode)
    if at == "f16":
        h = b(f"bitcast i16 {k.get(b, a, 'b16')} to half")
        v = b(f"fpext half {h} to float")
        if irnd:  # an f16 rounded to an integer is exact in f32
            v = b(f"call float @llvm.{INT_ROUND[irnd]}.f32(float {v})")
        if not is_flt(dt):
            return k.set(b, d, dt, _to_int(b, b(f"fpext float {v} to double"), dt, irnd))
        r = v if dt == "f32" else b(f"fpext float {v} to double")
        if "ftz" in parts:
            r = _ftz(b, r, dt)
        return k.set(b, d, dt, _canon(b, r, dt))
    if dt == "f16x2":  # two f32 sources: a into the upper half, b into the lower (ops_cvt)
        if at != "f32" or len(ins.operands) != 3:
            raise Unsupported(ins.opcode)
        hi = b(f"zext i16 {_to_f16(k, b, ins, parts, k.get(b, a, at), at, irnd, mode)} to i32")
        lo = b(f"zext i16 {_to_f16(k, b, ins, parts, k.get(b, ins.operands[2], at), at, irnd, mode)} to i32")
        return k.set(b, d, "b32", b(f"or i32 {b(f'shl i32 {hi}, 16')}, {lo}"))
    k.set(b, d, "b16", _to_f16(k, b, ins, parts, k.get(b, a, at), at, irnd, mode))


def _to_f16(k, b, ins, parts, x, at, irnd, mode) -> str:
    """The f16 bits (i16) of source value x of type `at`, rounded once in `mode`, NaN canonical."""
    if at == "f32":
        if "ftz" in parts:
            x = _ftz(b, x, at)
        if irnd:
            x = b(f"call float @llvm.{INT_ROUND[irnd]}.f32(float {x})")
        x64 = b(f"fpext float {x} to double")
        narrow = x  # f32 -> f16 in one rounding
    else:
        if at == "f64":
            x64 = b(f"call double @llvm.{INT_ROUND[irnd]}.f64(double {x})") if irnd else x
        elif bits_of(at) <= 32:
            x64 = b(f"{'sitofp' if at[0] == 's' else 'uitofp'} {ity(at)} {x} to double")
        else:  # numpy's own int64 -> f16 cast is the interpreter's reference there
            raise Unsupported(ins.opcode)
        narrow = _odd_f32(b, x64)
    h = b(f"fptrunc float {narrow} to half")
    bits = b(f"bitcast half {h} to i16")
    if mode:
        wide = b(f"fpext half {h} to float")
        back = b(f"fpext float {wide} to double")
        bits = _directed_step(b, bits, "i16", back, x64, mode)
    mag = b(f"and i16 {bits}, 32767")
    nan = b(f"icmp ugt i16 {mag}, 31744")
    return b(f"select i1 {nan}, i16 32767, i16 {bits}")


def _cvt_bf16(k, b, ins, parts, dt, at, irnd, frnd) -> None:
    """cvt to or from bf16 (bits in .b16 or .bf16 registers), as ops_cvt: to bf16 from an f32 (an
    f64 or an integer rounded to f32 first, to nearest), then types.f32_to_bf16's rounding on the
    bits: truncated for .rz, to nearest-even otherwise, NaN canonical 0x7fff; from bf16 a shift,
    which keeps a NaN's payload."""
    d, a = ins.operands[:2]
    if "sat" in parts or "relu" in parts or dt == at or "f16" in (dt, at):
        raise Unsupported(ins.opcode)
    if at == "bf16":
        wide = b.resize(k.get(b, a, "b16"), 16, 32)
        v = b(f"bitcast i32 {b(f'shl i32 {wide}, 16')} to float")
        if irnd:
            v = b(f"call float @llvm.{INT_ROUND[irnd]}.f32(float {v})")
        if not is_flt(dt):
            return k.set(b, d, dt, _to_int(b, b(f"fpext float {v} to double"), dt, irnd))
        if dt == "f64":
            return k.set(b, d, dt, b(f"fpext float {v} to double"))
        return k.set(b, d, dt, _ftz(b, v, dt) if "ftz" in parts else v)
    x = k.get(b, a, at)
    if at == "f32":
        if "ftz" in parts:
            x = _ftz(b, x, at)
        if irnd:
            x = b(f"call float @llvm.{INT_ROUND[irnd]}.f32(float {x})")
        v = x
    elif at == "f64":
        if irnd:
            x = b(f"call double @llvm.{INT_ROUND[irnd]}.f64(double {x})")
        v = b(f"fptrunc double {x} to float")
    elif bits_of(at) <= 32:  # exact in f64, then to f32
        conv = "sitofp" if at[0] == "s" else "uitofp"
        v = b(f"fptrunc double {b(f'{conv} {ity(at)} {x} to double')} to float")
    elif frnd in DIRECTED:  # a 64-bit integer in a directed mode: rounded over rationals there
        raise Unsupported(ins.opcode)
    else:
        v = b(f"{'sitofp' if at[0] == 's' else 'uitofp'} {ity(at)} {x} to float")
    bits = b(f"bitcast float {v} to i32")
    if frnd != "rz":
        lsb = b(f"and i32 {b(f'lshr i32 {bits}, 16')}, 1")
        bits = b(f"add i32 {b(f'add i32 {bits}, 32767')}, {lsb}")
    r = b(f"trunc i32 {b(f'lshr i32 {bits}, 16')} to i16")
    nan = b(f"fcmp uno float {v}, {v}")
    k.set(b, d, "b16", b(f"select i1 {nan}, i16 32767, i16 {r}"))


def _lit(v: int, w: int) -> str:
    v &= (1 << w) - 1
    return str(v - (1 << w) if v >= 1 << (w - 1) else v)


def e_mov(k, b, pc, ins, parts) -> None:
    t = _type(ins)
    d, a = ins.operands[:2]
    w = bits_of(t)
    if a.kind == "vec":  # pack {lo, ..., hi}
        pw = w // len(a.value)
        r = "0"
        for n, o in enumerate(a.value):
            v = b.resize(k.get(b, o, f"b{pw}"), pw, w)
            if n:
                v = b(f"shl i{w} {v}, {pw * n}")
            r = b(f"or i{w} {r}, {v}")
        return k.set(b, d, f"b{w}", r)
    if d.kind == "vec":  # unpack
        pw = w // len(d.value)
        x = k.get(b, a, f"b{w}")
        for n, o in enumerate(d.value):
            v = b(f"lshr i{w} {x}, {pw * n}") if n else x
            k.set(b, o, f"b{pw}", b.resize(v, w, pw))
        return
    k.set(b, d, t, k.get(b, a, t))


def e_cvta(k, b, pc, ins, parts) -> None:
    t = _type(ins)
    to = "to" in parts
    space = space_of(parts)
    d, a = ins.operands[:2]
    if a.kind == "sym":
        v = k.generic(a.value) + a.offset if not to else k.sym(a.value)[1] + a.offset
        if a.value in k.prog.frame_syms:
            return k.set(b, d, t, b.resize(k.from_fp(b, v), 64, bits_of(t)))
        return k.set(b, d, t, b.const(v, t))
    x = k.get(b, a, "u64")
    base = {"shared": 0x7FFE_0000_0000, "local": 0x7FFD_0000_0000, "param": 0x7FFC_0000_0000}.get(space, 0)
    if base:
        x = b(f"{'sub' if to else 'add'} i64 {x}, {base}")
    k.set(b, d, t, b.resize(x, 64, bits_of(t)))


# -- memory -----------------------------------------------------------------------------------------------
def _vec(parts) -> int:
    return next((int(p[1:]) for p in parts if p in ("v2", "v4")), 1)


def e_ld(k, b, pc, ins, parts) -> None:
    t = _type(ins)
    nvec = _vec(parts)
    space = space_of(parts)
    dst, src = ins.operands[0], ins.operands[1]
    dsts = dst.value if dst.kind == "vec" else [dst]
    size = bits_of(t) // 8 if t != "pred" else 1
    # .cg/.cv loads are how CUB's look-back polls a flag another block writes: each one reads memory
    # again (never hoisted out of a loop), as on the GPU
    vol = "volatile " if any(p in parts for p in ("volatile", "relaxed", "acquire", "cg", "cv")) else ""
    if space == "param" and src.kind in ("addr", "sym") and src.value in k.prog.kparams:
        off = k.prog.kparams[src.value] + src.offset
        for n, o in enumerate(dsts):
            p = b(f"getelementptr i8, ptr %kparam, i64 {off + n * size}")
            inv = ", !invariant.load !2" if k.params_fixed else ""
            k.set(b, o, t, b(f"load {lty(t)}, ptr {p}, align 1{inv}"))
        return
    a, sp = k.address(b, src, space)
    p = k.pointer(b, a, sp, size * nvec)
    for n, o in enumerate(dsts):
        q = b(f"getelementptr i8, ptr {p}, i64 {n * size}") if n else p
        v = b(f"load {vol}{lty(t)}, ptr {q}, align 1")
        k.set(b, o, t, v)


def e_st(k, b, pc, ins, parts) -> None:
    t = _type(ins)
    nvec = _vec(parts)
    space = space_of(parts)
    dst, src = ins.operands[0], ins.operands[1]
    srcs = src.value if src.kind == "vec" else [src]
    size = bits_of(t) // 8
    vol = "volatile " if any(p in parts for p in ("volatile", "relaxed", "release")) else ""
    if space == "param" and dst.kind in ("addr", "sym") and dst.value in k.prog.kparams:
        raise Unsupported("stores to kernel parameters")
    vals = [k.get(b, o, t) for o in srcs]
    a, sp = k.address(b, dst, space)
    p = k.pointer(b, a, sp, size * nvec)
    for n, v in enumerate(vals):
        q = b(f"getelementptr i8, ptr {p}, i64 {n * size}") if n else p
        b.do(f"store {vol}{lty(t)} {v}, ptr {q}, align 1")


ATOMIC_INT = {"add": "add", "exch": "xchg", "and": "and", "or": "or", "xor": "xor",
              # PTX's inc/dec wrap at b exactly as LLVM's uinc_wrap/udec_wrap do
              "inc": "uinc_wrap", "dec": "udec_wrap"}


def _rmw(b, opname, t, old, x, y) -> str:
    """The value an atomic leaves in memory (LLVM's atomicrmw and cmpxchg semantics, spelled out)."""
    ty = ity(t)
    if opname in ("add", "and", "or", "xor"):
        return b(f"{opname} {ty} {old}, {x}")
    if opname == "exch":
        return x
    if opname == "cas":
        return b(f"select i1 {b(f'icmp eq {ty} {old}, {x}')}, {ty} {y}, {ty} {old}")
    if opname in ("min", "max"):
        cmp = ("s" if t[0] == "s" else "u") + ("lt" if opname == "min" else "gt")
        return b(f"select i1 {b(f'icmp {cmp} {ty} {old}, {x}')}, {ty} {old}, {ty} {x}")
    if opname == "inc":  # uinc_wrap: old >= x ? 0 : old + 1
        return b(f"select i1 {b(f'icmp uge {ty} {old}, {x}')}, {ty} 0, {ty} {b(f'add {ty} {old}, 1')}")
    # dec, udec_wrap: old == 0 or old > x ? x : old - 1
    wrap = b(f"or i1 {b(f'icmp eq {ty} {old}, 0')}, {b(f'icmp ugt {ty} {old}, {x}')}")
    return b(f"select i1 {wrap}, {ty} {x}, {ty} {b(f'sub {ty} {old}, 1')}")


def _fsum(b, old: str, x: str, t: str, flush: str) -> str:
    """atom.add.f32 as PTX defines it (ops_mem._FLOAT_ADDS): in global memory (`flush`, an i1)
    subnormal inputs and result flushed; a NaN made canonical. .f64: the plain IEEE sum."""
    if t != "f32":
        return b(f"fadd double {old}, {x}")
    plain = b(f"fadd float {old}, {x}")
    if flush != "false":
        flushed = _ftz(b, b(f"fadd float {_ftz(b, old, t)}, {_ftz(b, x, t)}"), t)
        plain = flushed if flush == "true" else b(f"select i1 {flush}, float {flushed}, float {plain}")
    return _canon(b, plain, t)


def _word_update(b, pc: int, p: str, sp: str, it: str, size: int, new_of) -> str:
    """The bits of the word at p (an `it`) before it became new_of(them). A block's shared memory
    and a thread's frame are touched by the block's own worker thread alone (as for integers): a load
    and a store. In global memory blocks on other worker threads may update the same word: a
    compare-and-swap loop, as LLVM's atomicrmw fadd would be, with the GPU's arithmetic in new_of."""
    if sp in ("shared", "local"):
        old = b(f"load {it}, ptr {p}, align {size}")
        b.do(f"store {it} {new_of(old)}, ptr {p}, align {size}")
        return old
    b.do(f"br label %A{pc}.pre")
    b.label(f"A{pc}.pre")
    first = b(f"load atomic {it}, ptr {p} monotonic, align {size}")
    b.do(f"br label %A{pc}.loop")
    b.label(f"A{pc}.loop")
    cur, seen = b.tmp(), b.tmp()
    b.do(f"{cur} = phi {it} [ {first}, %A{pc}.pre ], [ {seen}, %A{pc}.loop ]")
    pair = b(f"cmpxchg ptr {p}, {it} {cur}, {it} {new_of(cur)} monotonic monotonic, align {size}")
    b.do(f"{seen} = extractvalue {{ {it}, i1 }} {pair}, 0")
    b.do(f"br i1 {b(f'extractvalue {{ {it}, i1 }} {pair}, 1')}, label %A{pc}.done, label %A{pc}.loop")
    b.label(f"A{pc}.done")
    return cur


def _float_atomic_add(b, pc: int, a: str, p: str, sp: str, x: str, t: str) -> str:
    """The old value; memory holds old + x, with the GPU's flush (global memory only) and NaN rather
    than the host's. Lanes reach it one at a time (a WAIT point, codegen.kernel_sync_kinds), in the
    interpreter's order."""
    ty, it, size = lty(t), ity(t), bits_of(t) // 8
    if sp in ("shared", "local"):
        flush = "false"
    else:  # a generic address is global memory below the windows (ptx/ops_mem.resolve)
        flush = "true" if sp == "global" else b(f"icmp ult i64 {a}, {LOCAL_WINDOW - WINDOW_SIZE}")

    def add(cur):
        return b(f"bitcast {ty} {_fsum(b, b(f'bitcast {it} {cur} to {ty}'), x, t, flush)} to {it}")
    return b(f"bitcast {it} {_word_update(b, pc, p, sp, it, size, add)} to {ty}")


def _half_sum(b, u, v, brain):
    """One half of atom.add.noftz on f16/bf16 bits (ops_mem._half_add): the sum rounded once (in f32
    then to 16 bits: f32 holds more than twice either's precision, so that is the correctly rounded
    sum the interpreter gets through f64). NaN: bf16 0x7fff (f32_to_bf16); f16 the first NaN
    operand, quieted (numpy keeps an f16 payload through f64, whose add quiets it and returns the
    first), and inf - inf x86's default NaN, 0xfe00."""
    s = b(f"fadd float {_widen16(b, u, brain)}, {_widen16(b, v, brain)}")
    bits = _narrow16(b, s, brain)
    if brain:
        return b(f"select i1 {b(f'fcmp uno float {s}, {s}')}, i16 32767, i16 {bits}")
    bits = b(f"select i1 {b(f'fcmp uno float {s}, {s}')}, i16 -512, i16 {bits}")
    for h in (v, u):  # u last: its NaN wins
        nan = b(f"icmp ugt i16 {b(f'and i16 {h}, 32767')}, 31744")
        bits = b(f"select i1 {nan}, i16 {b(f'or i16 {h}, 512')}, i16 {bits}")
    return bits


def _half_atomic_add(b, pc: int, p: str, sp: str, x: str, t: str) -> str:
    """atom/red.add.noftz of f16, bf16 and their pairs (each half on its own): the old bits; a WAIT
    point like the f32 adds (check.float_atomic), so lanes add in the interpreter's order."""
    brain, pair = t.startswith("bf16"), t.endswith("x2")
    it, size = ("i32", 4) if pair else ("i16", 2)

    def add(cur):
        if not pair:
            return _half_sum(b, cur, x, brain)
        out = []
        for sh in (0, 16):
            u, v = (b(f"trunc i32 {b(f'lshr i32 {w}, {sh}')} to i16") for w in (cur, x))
            out.append(b(f"zext i16 {_half_sum(b, u, v, brain)} to i32"))
        return b(f"or i32 {out[0]}, {b(f'shl i32 {out[1]}, 16')}")
    return _word_update(b, pc, p, sp, it, size, add)


def e_atom(k, b, pc, ins, parts) -> None:
    is_red = parts[0] == "red"
    opname = next(p for p in parts if p in ("add", "min", "max", "exch", "cas", "and", "or", "xor", "inc", "dec"))
    t = _type(ins)
    if t == "pred" or _vec(parts) > 1:
        raise Unsupported(ins.opcode)
    ops = ins.operands
    d, a, rest = (None, ops[0], ops[1:]) if is_red else (ops[0], ops[1], ops[2:])
    if t in HALVES:
        from .engine import host_has
        if opname != "add" or len(rest) != 1 or t.startswith("f16") and not host_has("f16c"):
            raise Unsupported(ins.opcode)
        bt = "b32" if t.endswith("x2") else "b16"
        addr, sp = k.address(b, a, space_of(parts))
        old = _half_atomic_add(b, pc, k.pointer(b, addr, sp, bits_of(bt) // 8), sp, k.get(b, rest[0], bt), t)
        if d is not None:
            k.set(b, d, bt, old)
        return
    size = bits_of(t) // 8
    x = k.get(b, rest[0], t)
    y = k.get(b, rest[1], t) if opname == "cas" else None
    addr, sp = k.address(b, a, space_of(parts))
    p = k.pointer(b, addr, sp, size)
    ty = lty(t)
    if is_flt(t):
        if opname != "add":
            raise Unsupported(f"float atomic {ins.opcode}")  # check.py: min/max, the interpreter's alone
        old = _float_atomic_add(b, pc, addr, p, sp, x, t)
    elif sp in ("shared", "local"):
        # a block's shared memory (and a thread's frame) is touched by the one worker thread that
        # runs the block: no other thread can come between the read and the write, so the locked
        # instruction (some 20 cycles on x86) is not needed
        old = b(f"load {ty}, ptr {p}, align {size}")
        b.do(f"store {ty} {_rmw(b, opname, t, old, x, y)}, ptr {p}, align {size}")
    elif opname == "cas":
        pair = b(f"cmpxchg ptr {p}, {ty} {x}, {ty} {y} monotonic monotonic, align {size}")
        old = b(f"extractvalue {{ {ty}, i1 }} {pair}, 0")
    else:
        op = ATOMIC_INT.get(opname) or (("" if t[0] == "s" else "u") + opname)
        old = b(f"atomicrmw {op} ptr {p}, {ty} {x} monotonic, align {size}")
    if d is not None:
        k.set(b, d, t, old)


# -- control ------------------------------------------------------------------------------------------------
def e_bra(k, b, pc, ins, parts) -> None:
    target = k.prog.labels.get(ins.operands[0].value)
    if target is None:
        raise Unsupported(f"branch to {ins.operands[0].value!r}")
    if target <= pc:
        k.back_edge(b)
    b.do(f"br label %I{target}")


def e_exit(k, b, pc, ins, parts) -> None:
    b.do(f"store i32 {EXIT}, ptr %rv, align 4")
    b.do("br label %out")


def e_trap(k, b, pc, ins, parts) -> None:
    if ins.operands:
        raise Unsupported("trap of an indirect call")
    p = b(f"getelementptr i64, ptr %ctx, i64 {FCODE}")
    b.do(f"store i64 10, ptr {p}, align 8")
    b.do("br label %fault")


def e_call(k, b, pc, ins, parts) -> None:
    """call.vprintf (fmt, buf) and call.__assertfail (message, file, line, function): the values
    read from the call's .param slots, handed with the thread, its block and its local frame to the
    runner's callback (prelude.HOST_CALL). vprintf's answer (the argument count) is its result; after
    an assert's line is written the thread leaves the kernel with the context's ASSERTED set (the
    block loop fails the block once the lanes at this assert have all written theirs). -1: a fault
    the callback raised (the launch is abandoned and the runner raises it)."""
    kind = {"vprintf": 0, "__assertfail": 1}.get(".".join(parts[1:]))
    if kind is None:
        raise Unsupported(f"call {ins.opcode}")
    rets, args = ins.operands[0].value, ins.operands[1].value
    widths = (8, 8) if kind == 0 else (8, 8, 4, 8)
    vals = []
    for o, w in zip(args, widths):
        a, sp = k.address(b, o, "local")
        v = b(f"load i{8 * w}, ptr {k.pointer(b, a, sp, w)}, align 1")
        vals.append(v if w == 8 else b(f"zext i32 {v} to i64"))
    vals += ["0"] * (4 - len(vals))
    k.decls.add(HOST_CALL)
    r = b(f"call i32 @host(ptr %ctx, i32 {kind}, i64 %t, i64 %blk, ptr %frame, "
          + ", ".join(f"i64 {v}" for v in vals) + ")")
    n = b.n
    b.do(f"br i1 {b(f'icmp slt i32 {r}, 0')}, label %abandon, label %hc{n}, !prof !0")
    b.label(f"hc{n}")
    if kind == 1:
        b.do(f"store i64 1, ptr {b(f'getelementptr i64, ptr %ctx, i64 {ASSERTED}')}, align 8")
        b.do(f"store i32 {EXIT}, ptr %rv, align 4")
        b.do("br label %out")
        return
    if rets:
        a, sp = k.address(b, rets[0], "local")
        b.do(f"store i32 {r}, ptr {k.pointer(b, a, sp, 4)}, align 1")


def e_dot(k, b, pc, ins, parts) -> None:
    """dp4a.atype.btype d, a, b, c and dp2a.{lo,hi}.atype.btype (ops_int.c_dp): the bytes of b (dp2a:
    its low or high two) times the bytes (dp2a: the 16-bit halves) of a, each signed or not by its
    operand's type, summed into c; d is s32 when either type is. Wrapping i32 arithmetic gives the
    interpreter's result, which it reduces mod 2^32 from int64."""
    ts = [p for p in parts if p in ("u32", "s32")]
    if len(ts) != 2:
        raise Unsupported(ins.opcode)
    ta, tb = ts
    four = parts[0] == "dp4a"
    dt = "s32" if "s32" in (ta, tb) else "u32"
    a, bb = (k.get(b, o, "b32") for o in ins.operands[1:3])
    acc = k.get(b, ins.operands[3], dt)

    def lane(x, t, i, w):
        v = b(f"trunc i32 {b(f'lshr i32 {x}, {i * w}')} to i{w}")
        return b(f"{'sext' if t == 's32' else 'zext'} i{w} {v} to i32")
    for i in range(4 if four else 2):
        j = i + (2 if "hi" in parts else 0)
        acc = b(f"add i32 {acc}, {b(f'mul i32 {lane(a, ta, i, 8 if four else 16)}, {lane(bb, tb, j, 8)}')}")
    k.set(b, ins.operands[0], dt, acc)


def e_nothing(k, b, pc, ins, parts) -> None:
    pass  # fences: a thread's memory operations complete in order; prefetch and nanosleep: timing


EMITTERS = {
    "add": e_arith, "sub": e_arith, "addc": e_arith, "subc": e_arith, "madc": e_arith, "copysign": e_arith, "mul": e_arith, "mad": e_arith, "div": e_arith, "rem": e_arith,
    "min": e_arith, "max": e_arith, "and": e_arith, "or": e_arith, "xor": e_arith, "shl": e_arith, "shr": e_arith,
    "fma": e_fma,
    "sqrt": e_unary, "rcp": e_unary, "rsqrt": e_unary, "sin": e_unary, "cos": e_unary, "lg2": e_unary,
    "ex2": e_unary, "tanh": e_unary,
    "abs": e_unary, "neg": e_unary, "not": e_unary, "cnot": e_unary, "brev": e_unary, "popc": e_unary,
    "clz": e_unary, "testp": e_testp, "set": e_set, "setp": e_setp, "selp": e_selp, "cvt": e_cvt, "mov": e_mov, "cvta": e_cvta,
    "ld": e_ld, "ldu": e_ld, "st": e_st, "atom": e_atom, "red": e_atom, "bra": e_bra, "ret": e_exit,
    "exit": e_exit, "trap": e_trap, "call": e_call, "membar": e_nothing, "fence": e_nothing,
    "prefetch": e_nothing, "prefetchu": e_nothing, "nanosleep": e_nothing, "rgpu": e_rgpu,
    "dp4a": e_dot, "dp2a": e_dot, "shf": e_shf, "bfe": e_bits, "bfi": e_bits, "prmt": e_bits, "bfind": e_bits, "isspacep": e_isspacep,
}
_ = (TYPE_SIZES, FLT_MIN_BITS)
