"""Real kernels of the pinned cuBLAS, run on the software GPU from the container cuBLAS ships them
in, on small sizes, against numpy: proof that the interpreter runs NVIDIA's PTX before any client
drives cuBLAS through rgpu. Parameter layouts are the kernels' own (from their .entry lists);
meanings follow their demangled signatures."""
from __future__ import annotations

import numpy as np
import pytest

from tests.unit.sim import nvkernels

CONJ = "_Z16kernel_conjugatePK6float2PS_"
# gemm_kernel1x1_core<float, false x5>(C, A, B, m, n, k, lda, ldb, ldc, alpha*, beta*, alpha, beta, ptr_mode):
# 16x16 threads per block, one element of C each, column-major operands.
SGEMM = "_Z19gemm_kernel1x1_coreIfLb0ELb0ELb0ELb0ELb0EEvPT_PKS0_S3_iiiiiiS1_S1_S0_S0_i"


@pytest.fixture(scope="module")
def cublas_gemm():
    return nvkernels.load("cublas", SGEMM)


def test_the_container_is_a_real_library_module(cublas_gemm):
    """The module came with cuBLAS's SASS beside its PTX, and only the kernel launched is parsed."""
    from rgpu.server.backends.sim import fatbin
    img = fatbin.parse_image(nvkernels.container("cublas", SGEMM))
    assert img.cubins and {e.arch for e in img.ptx} == {120}
    assert len(cublas_gemm.functions) > 1
    assert cublas_gemm.ptx.functions.pending(SGEMM)  # nothing parsed before the first use


def test_conjugate(make_device, rng):
    mod = nvkernels.load("cublas", CONJ)
    dev = make_device(mod)
    z = (rng.standard_normal(64) + 1j * rng.standard_normal(64)).astype(np.complex64)
    out = dev.zeros(128, np.float32)
    dev.launch(CONJ, 1, 64, dev.put(z), out)
    np.testing.assert_array_equal(dev.get(out, 128, np.float32).view(np.complex64), np.conj(z))


@pytest.mark.parametrize("m,n,k,pointer_mode", [(20, 13, 37, 0), (16, 16, 16, 1), (5, 33, 3, 0)])
def test_sgemm_kernel(cublas_gemm, make_device, rng, m, n, k, pointer_mode):
    dev = make_device(cublas_gemm)
    lda, ldb, ldc = m + 3, k + 1, m + 2
    A = rng.standard_normal((lda, k)).astype(np.float32)  # column-major: A[:, j] is column j
    B = rng.standard_normal((ldb, n)).astype(np.float32)
    C = rng.standard_normal((ldc, n)).astype(np.float32)
    alpha, beta = np.float32(1.5), np.float32(-0.5)
    pa, pb, pc = (dev.put(np.asfortranarray(x).T.copy()) for x in (A, B, C))  # column-major bytes
    palpha, pbeta = dev.put(np.array([alpha])), dev.put(np.array([beta]))
    # With pointer_mode set the kernel reads alpha and beta from device memory instead.
    sa, sb = (np.float32(0), np.float32(0)) if pointer_mode else (alpha, beta)
    dev.launch(SGEMM, ((m + 15) // 16, (n + 15) // 16), (16, 16), pc, pa, pb, m, n, k, lda, ldb, ldc,
               palpha, pbeta, sa, sb, pointer_mode)
    got = dev.get(pc, ldc * n, np.float32).reshape(n, ldc).T
    want = C.astype(np.float64).copy()
    want[:m] = alpha * (A[:m, :k].astype(np.float64) @ B[:k, :n]) + beta * C[:m]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[m:], C[m:])  # rows past m untouched


# geqr2_batch_kernel_shmem<float, float, 2, 128>(m, n, k, A[], lda, tau[], batch): Householder QR
# of a batch of small column-major matrices, in LAPACK's geqr2 form (R above the diagonal, the
# reflectors' tails below, tau apart); 2 threads per matrix, 128 matrices per block. It lives in
# cuBLAS's biggest module (272 kernels, 7 MB of PTX), of which only it is parsed.
GEQR2 = "_Z24geqr2_batch_kernel_shmemIffLi2ELi128EEviiiPKPT_iS3_i"


def test_batched_qr_kernel(make_device, rng):
    mod = nvkernels.load("cublas", GEQR2)
    dev = make_device(mod)
    m, n, batch, lda = 6, 4, 3, 7
    mats = [rng.standard_normal((lda, n)).astype(np.float32) for _ in range(batch)]
    ptrs = [dev.put(A.T.copy()) for A in mats]  # column-major bytes
    taus = [dev.zeros(n, np.float32) for _ in range(batch)]
    # Pointer parameters follow 4-byte ones: their offsets must come out 8-aligned although the
    # PTX says '.ptr .align 1' (the pointee's alignment) — cuBLAS's launch buffer has them at 16.
    assert [p.offset for p in mod.functions[GEQR2].params] == [0, 4, 8, 16, 24, 32, 40]
    dev.launch(GEQR2, 1, (2, 128), m, n, min(m, n), dev.put(np.array(ptrs, np.uint64)), lda,
               dev.put(np.array(taus, np.uint64)), batch, shared=1536 + 128 * m * 4)
    for A, p, pt in zip(mats, ptrs, taus):
        out = dev.get(p, lda * n, np.float32).reshape(n, lda).T
        tau = dev.get(pt, n, np.float32).astype(np.float64)
        R = np.triu(out[:m, :n]).astype(np.float64)
        Q = np.eye(m)
        for i in range(min(m, n)):  # H_i = I - tau_i v v^T, v = (0.., 1, A[i+1:, i])
            v = np.zeros(m)
            v[i] = 1
            v[i + 1:] = out[i + 1:m, i]
            Q = Q @ (np.eye(m) - tau[i] * np.outer(v, v))
        np.testing.assert_allclose(Q @ R, A[:m], atol=1e-5)
        np.testing.assert_allclose(np.abs(np.diag(R)), np.abs(np.diag(np.linalg.qr(A[:m].astype(np.float64), mode="r"))),
                                   rtol=1e-5)
        np.testing.assert_array_equal(out[m:], A[m:])  # the padding rows below m are untouched


def test_a_cached_body_is_the_parsed_body(tmp_path, monkeypatch):
    """The parse cache gives back exactly what the parser made, for a real tensor-core GEMM kernel
    (vector operands, immediates of every kind, predicates, nested scopes)."""
    from rgpu.server.backends.sim import fatbin
    from rgpu.server.backends.sim.ptx import cache, lazy
    kernel = "_ZN7cutlass6KernelI71cutlass_80_tensorop_s1688gemm_forwardCompat_grouped_128x128_16x6_align4EEvNT_6ParamsE"
    monkeypatch.setenv("RGPU_SIM_CACHE", str(tmp_path))
    ptx = fatbin.choose_ptx(fatbin.parse_image(nvkernels.container("cublas", kernel)), (12, 1)).data
    parsed = lazy.load(ptx).functions[kernel]
    hits = cache.stats()["hits"]
    cached = lazy.load(ptx).functions[kernel]
    assert cache.stats()["hits"] == hits + 1
    assert cached.body == parsed.body and cached.regs == parsed.regs and cached.locals == parsed.locals
    assert any(i.opcode.startswith("mma.sync") for i in cached.body if hasattr(i, "opcode"))
