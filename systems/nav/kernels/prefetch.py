"""A software prefetch for numba kernels: ``prefetch(array, index)`` asks the CPU to bring the
cache line holding ``array[index]`` in, without waiting for it (LLVM's ``llvm.prefetch``; the
index is not checked and the hint never faults).

Why: the field Dijkstra takes its bucket's entries in the order they were pushed, and on a big
map each entry's neighbourhood (three rows of distances, its move mask) is rarely in the nearest
caches. Requesting the lines of an entry a few places ahead lets those misses overlap with the
work in between (4096², 20% random walls, one thread: 34 -> 25 ns a cell)."""

from __future__ import annotations

from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

__all__ = ["prefetch", "prefetch_around", "PREFETCH_AHEAD", "PREFETCH_CELLS"]

#: how many entries ahead of the one being relaxed a Dijkstra prefetches the neighbourhood of
#: (8 and 16 measured alike)
PREFETCH_AHEAD = 8
#: fields of fewer cells than this are not prefetched by the one-thread Dijkstra: they sit in the
#: caches already, and the hints cost (128², one thread: 17 -> 20 ns a cell with them; 512²: no
#: change; 4096²: 37 -> 30)
PREFETCH_CELLS = 1 << 20


@intrinsic
def prefetch(typingctx, array, index):
    """Prefetch the cache line of ``array[index]`` (a 1-D array, an integer index) for reading."""
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        data, i = args
        ary = context.make_array(signature.args[0])(context, builder, data)
        pointer = cgutils.get_item_pointer(context, builder, signature.args[0], ary, [i], wraparound=False)
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]), "llvm.prefetch.p0i8")
        # read (0), high locality (3), data cache (1)
        builder.call(fn, [builder.bitcast(pointer, byte_pointer), ir.Constant(i32, 0), ir.Constant(i32, 3),
                          ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always")
def prefetch_around(dist, moves, u, wp):
    """Prefetch what relaxing padded flat cell ``u`` reads: its row of ``dist`` and the rows
    above and below (``wp`` cells wide), and its move mask."""
    prefetch(dist, u - wp)
    prefetch(dist, u)
    prefetch(dist, u + wp)
    prefetch(moves, u)
