"""The reference kernels of sections 7.2 and 7.4, as Numba CUDA kernels.

They follow solutions/7.2-basic-1d/convolution_1d_basic.cu and
solutions/7.4-tiled-1d/convolution_1d_tiled.cu line for line: the same thread-to-output map,
the same ghost-cell tests, the same tile layout and barrier. Kernels are built by factories
because Numba wants array shapes (the shared tile) and constant-memory contents (the 7.4 mask)
fixed when the kernel is compiled, as the .cu files get them from #defines and a __constant__
array."""
import numpy as np
from numba import cuda, float32


def make_basic_kernel():
    """Section 7.2: one thread per output; neighbours outside N (ghost cells) are skipped."""

    @cuda.jit
    def convolution_1d_basic(N, M, P, mask_width, width):
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x  # the output this thread owns
        if i < width:
            first = i - mask_width // 2  # input under M[0]
            acc = float32(0.0)
            for j in range(mask_width):
                k = first + j
                if k >= 0 and k < width:  # ghost cells count as 0: skip, never load
                    acc += N[k] * M[j]
            P[i] = acc

    return convolution_1d_basic


def make_tiled_kernel(mask, tile_size, max_mask_width):
    """Section 7.4: each block copies its tile of N, with n halo cells each side, into shared
    memory (ghost cells stored as 0), waits at a barrier, then computes from shared memory.
    `mask` goes into constant memory, as copy_mask_to_constant does in the .cu file."""
    const_mask = np.ascontiguousarray(mask, dtype=np.float32)
    tile_cells = tile_size + max_mask_width - 1

    @cuda.jit
    def convolution_1d_tiled(N, P, mask_width, width):
        M = cuda.const.array_like(const_mask)
        N_ds = cuda.shared.array(tile_cells, dtype=float32)
        n = mask_width // 2  # mask radius: halo cells each side
        tx = cuda.threadIdx.x
        tile = cuda.blockDim.x  # outputs per block
        start = cuda.blockIdx.x * tile  # first output of this block's tile
        i = start + tx

        if tx >= tile - n:  # the last n threads: left halo, from the end of the previous tile
            left = start - tile + tx
            N_ds[tx - (tile - n)] = N[left] if left >= 0 else float32(0.0)
        N_ds[n + tx] = N[i] if i < width else float32(0.0)  # centre; 0 past the end
        if tx < n:  # the first n threads: right halo, from the start of the next tile
            right = start + tile + tx
            N_ds[n + tile + tx] = N[right] if right < width else float32(0.0)
        cuda.syncthreads()  # the whole tile is written before any thread reads it

        if i < width:
            acc = float32(0.0)
            for j in range(mask_width):
                acc += N_ds[tx + j] * M[j]
            P[i] = acc

    return convolution_1d_tiled
