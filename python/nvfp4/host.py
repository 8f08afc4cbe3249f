"""Calling host-lowered functions from Python (docs/Host.md).

A function lowered whole (``nvfp4-opt --nvfp4-to-llvm``, ``mlir-translate``,
``llc``, linked into a shared library with libnvfp4_host_runtime) is called
through its C interface ``_mlir_ciface_NAME``::

    from nvfp4.host import HostLibrary
    lib = HostLibrary("libdsv4.so", runtime="libnvfp4_host_runtime.so")
    q = lib.upload(q_bytes)                       # device memory
    results = lib.call("dsv4_decode", [(q, (4, 1, 128, 512)), ...],
                       result_ranks=[4, 3])
    o = lib.download(results[0], nbytes); lib.free(results[0])

Arguments are (device address, shape) pairs of contiguous row-major
buffers: the runtime's own allocations (upload / alloc) or, on the cuda
backend, any CUDA device pointer of the primary context (a torch tensor's
data_ptr()). Results are allocated by the function; the caller frees them.
Errors of the runtime raise nvfp4.Error. The backend is NVFP4_BACKEND's.
"""

import ctypes

from . import Error


class HostLibrary:
    def __init__(self, path, runtime="libnvfp4_host_runtime.so"):
        self.runtime = ctypes.CDLL(runtime, mode=ctypes.RTLD_GLOBAL)
        self.lib = ctypes.CDLL(path)
        rt = self.runtime
        rt.nvfp4HostError.restype = ctypes.c_char_p
        rt.nvfp4HostBackend.restype = ctypes.c_char_p
        rt.mgpuMemAlloc.restype = ctypes.c_void_p
        rt.mgpuMemAlloc.argtypes = [ctypes.c_uint64, ctypes.c_void_p,
                                    ctypes.c_int8]
        rt.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        rt.mgpuMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.c_size_t, ctypes.c_void_p]

    def _check(self):
        e = self.runtime.nvfp4HostError()
        if e is not None:
            raise Error("the host runtime: " + e.decode())

    @property
    def backend(self):
        b = self.runtime.nvfp4HostBackend()
        self._check()
        return b.decode()

    def alloc(self, nbytes):
        p = self.runtime.mgpuMemAlloc(nbytes, None, 0)
        self._check()
        return p

    def upload(self, data):
        data = bytes(data)
        p = self.alloc(len(data))
        self.runtime.mgpuMemcpy(p, data, len(data), None)
        self._check()
        return p

    def download(self, ptr, nbytes):
        buf = ctypes.create_string_buffer(nbytes)
        self.runtime.mgpuMemcpy(buf, ptr, nbytes, None)
        self._check()
        return buf.raw

    def free(self, ptr):
        self.runtime.mgpuMemFree(ptr, None)
        self._check()

    def call(self, name, args, result_ranks):
        """Calls _mlir_ciface_NAME on `args` ((address, shape) pairs);
        returns the results' (allocated, aligned, shape) triples."""
        keep = []
        pointers = []
        for ptr, shape in args:
            words = [ptr, ptr, 0] + list(shape)
            stride, strides = 1, []
            for d in reversed(shape):
                strides.insert(0, stride)
                stride *= d
            arr = (ctypes.c_int64 * len(words + strides))(
                *[w or 0 for w in words + strides])
            keep.append(arr)
            pointers.append(ctypes.cast(arr, ctypes.c_void_p))
        words = sum(3 + 2 * r for r in result_ranks)
        results = (ctypes.c_int64 * max(words, 1))()
        fn = getattr(self.lib, "_mlir_ciface_" + name)
        fn.restype = None
        fn(results, *pointers)
        self._check()
        out, at = [], 0
        for r in result_ranks:
            shape = tuple(results[at + 3 + i] for i in range(r))
            out.append((results[at], results[at + 1], shape))
            at += 3 + 2 * r
        return out
