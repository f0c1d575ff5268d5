"""PTX scopes: a name declared again in a nested block ({ ... }) is a different register or
variable there, even with another type — as inline asm and -G call sites write them."""
from __future__ import annotations

import struct

import numpy as np

from rgpu.server.backends.sim import kernels
from rgpu.server.backends.sim.kernels import KernelModule
from rgpu.server.backends.sim.memory import DeviceMemory

PTX = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry scoped(.param .u64 out)
{
    .reg .b32 v;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    mov.b32 v, 7;
    {
        .reg.f32 v;                     // glued directive, shadows the outer v with a float
        mov.f32 v, 0f40400000;          // 3.0
        add.f32 v, v, v;
        st.global.f32 [%rd1+4], v;
    }
    {
        .reg .b16 v;
        .local .align 8 .b8 slot[8];   // a scope's own variable, 8-aligned
        mov.b16 v, 0x1234;
        st.local.u64 [slot], 0x1122334455667788;
        ld.local.u64 %rd2, [slot];
        st.global.u16 [%rd1+8], v;
        st.global.u64 [%rd1+16], %rd2;
    }
    {
        .local .align 2 .b8 slot[2];   // the same name, another size and alignment
        st.local.u16 [slot], 5;
    }
    st.global.u32 [%rd1], v;            // the outer v, untouched by the blocks
    ret;
}
"""


def test_nested_declarations_shadow_without_clobbering():
    mod = KernelModule.load(PTX.encode())
    mem = DeviceMemory(1 << 20)
    mod.bind(mem)
    out = mem.alloc(32)
    mem.write(out, bytes(32))
    kernels.launch(mod, mod.functions["scoped"], mem, (1, 1, 1), (1, 1, 1), 0, struct.pack("<Q", out), [])
    raw = mem.read(out, 24)
    assert struct.unpack_from("<I", raw, 0)[0] == 7
    assert struct.unpack_from("<f", raw, 4)[0] == np.float32(6.0)
    assert struct.unpack_from("<H", raw, 8)[0] == 0x1234
    assert struct.unpack_from("<Q", raw, 16)[0] == 0x1122334455667788


def test_pragma_strings_may_hold_spaces():
    # CUB's kernels carry '.pragma "used_bytes_mask N";' — a string with a space in it.
    ptx = PTX.replace("    ret;\n}", '    .pragma "used_bytes_mask 240";\n    ret;\n}')
    assert '"used_bytes_mask 240"' in ptx
    mod = KernelModule.load(ptx.encode())
    assert mod.functions["scoped"].program is not None
