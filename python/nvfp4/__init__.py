"""nvfp4: compile nvfp4 ops once, launch them many times (docs/CAPI.md).

A thin ctypes layer over the C API (libnvfp4.so, include/nvfp4-c/nvfp4.h);
nothing beyond the standard library is needed at import. Buffers are taken
through DLPack (``__dlpack__``: PyTorch, JAX, CuPy) or the CUDA array
interface (``__cuda_array_interface__``), or are this package's own
DeviceArray (the only kind the emulator backend takes)::

    import nvfp4
    k = nvfp4.compile(mlir_text)                # or compile_file(path)
    dev = nvfp4.Device("cuda")                  # or "emulator"
    k(q, kv, sink, lens, out=(o, lse), device=dev)
    k.save("decode.nvfp4")                      # and where there is no
    k = nvfp4.load("decode.nvfp4")              # compiler (libnvfp4_runtime)

Errors raise nvfp4.Error with the library's message, which names the
argument (``input 1 (kv): expected bf16 [4, 4096, 1, 512], got ...``).
"""

import ctypes
import ctypes.util
import json
import os

__all__ = ["Error", "Device", "DeviceArray", "Kernel", "TensorInfo",
           "compile", "compile_file", "load", "api_version", "DTYPES"]

#: dtype names, by the C API's nvfp4_dtype value.
DTYPES = ["f32", "bf16", "f16", "i32", "u8", "i8"]
# CUstream CU_STREAM_LEGACY (cuda.h): the legacy default stream, handle 0
# in torch; the C API reads a NULL stream as "launch and wait".
_CU_STREAM_LEGACY = 0x1
_ITEMSIZE = {"f32": 4, "bf16": 2, "f16": 2, "i32": 4, "u8": 1, "i8": 1}


class Error(RuntimeError):
    """A failed nvfp4 call; the message names the argument."""


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64))]


class _TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32), ("shape", ctypes.c_int64 * 8)]


_LIB = None


def _library():
    """$NVFP4_LIBRARY, else libnvfp4.so next to this package or on the
    system's search path, else libnvfp4_runtime.so (no compiler: load()
    only) there."""
    global _LIB
    if _LIB is not None:
        return _LIB
    candidates = []
    if os.environ.get("NVFP4_LIBRARY"):
        candidates.append(os.environ["NVFP4_LIBRARY"])
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("nvfp4", "nvfp4_runtime"):
        candidates.append(os.path.join(here, "lib%s.so" % name))
        found = ctypes.util.find_library(name)
        if found:
            candidates.append(found)
    errors = []
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    else:
        raise Error("cannot load libnvfp4.so (set NVFP4_LIBRARY): " +
                    ("; ".join(errors) or "not found"))
    P, S, I, U64 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_uint64
    sig = {
        "nvfp4_api_version": (I, []),
        "nvfp4_last_error": (ctypes.c_char_p, []),
        "nvfp4_compile": (I, [ctypes.c_char_p, S, ctypes.c_char_p,
                              ctypes.POINTER(P)]),
        "nvfp4_compile_file": (I, [ctypes.c_char_p, ctypes.c_char_p,
                                   ctypes.POINTER(P)]),
        "nvfp4_kernel_destroy": (None, [P]),
        "nvfp4_kernel_num_inputs": (S, [P]),
        "nvfp4_kernel_num_outputs": (S, [P]),
        "nvfp4_kernel_tensor": (I, [P, I, S, ctypes.POINTER(_TensorInfo)]),
        "nvfp4_kernel_ptx": (ctypes.c_char_p, [P]),
        "nvfp4_kernel_cubin": (P, [P, ctypes.POINTER(S)]),
        "nvfp4_kernel_metadata": (ctypes.c_char_p, [P]),
        "nvfp4_kernel_workspace_bytes": (U64, [P]),
        "nvfp4_kernel_artifact": (P, [P, ctypes.POINTER(S)]),
        "nvfp4_kernel_save": (I, [P, ctypes.c_char_p]),
        "nvfp4_kernel_load": (I, [ctypes.c_char_p, S, ctypes.POINTER(P)]),
        "nvfp4_kernel_load_file": (I, [ctypes.c_char_p, ctypes.POINTER(P)]),
        "nvfp4_device_create": (I, [ctypes.c_char_p, I, ctypes.POINTER(P)]),
        "nvfp4_device_destroy": (None, [P]),
        "nvfp4_device_backend": (ctypes.c_char_p, [P]),
        "nvfp4_malloc": (I, [P, S, ctypes.POINTER(P)]),
        "nvfp4_free": (I, [P, P]),
        "nvfp4_copy_to_device": (I, [P, P, P, S]),
        "nvfp4_copy_to_host": (I, [P, P, P, S]),
        "nvfp4_launch": (I, [P, P, ctypes.POINTER(_Tensor), S,
                             ctypes.POINTER(_Tensor), S, P, S, P]),
        "nvfp4_run_check": (I, [P, P, U64, ctypes.POINTER(I),
                                ctypes.c_char_p, S]),
        "nvfp4_make_inputs": (I, [P, U64, ctypes.POINTER(P), S]),
        "nvfp4_check_outputs": (I, [P, ctypes.POINTER(P), S,
                                    ctypes.POINTER(P), S, ctypes.POINTER(I),
                                    ctypes.c_char_p, S]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    _LIB = lib
    return lib


def _check(status):
    if status != 0:
        raise Error(_library().nvfp4_last_error().decode())


def api_version():
    """The library's NVFP4_API_VERSION (major * 1000 + minor)."""
    return _library().nvfp4_api_version()


def _options(options):
    return " ".join("%s=%s" % (k.replace("_", "-"), v)
                    for k, v in options.items()).encode()


class TensorInfo:
    """An input or output of a kernel: the op's tensor name, dtype, shape."""

    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, dtype, tuple(shape)

    @property
    def nbytes(self):
        n = _ITEMSIZE[self.dtype]
        for d in self.shape:
            n *= d
        return n

    def __repr__(self):
        return "TensorInfo(%r, %r, %r)" % (self.name, self.dtype, self.shape)


class Device:
    """A backend: "cuda" (GPU `ordinal`) or "emulator" (no GPU needed)."""

    def __init__(self, backend="cuda", ordinal=0):
        lib = _library()
        handle = ctypes.c_void_p()
        _check(lib.nvfp4_device_create(str(backend).encode(), int(ordinal),
                                       ctypes.byref(handle)))
        self._handle = handle
        self.backend = lib.nvfp4_device_backend(handle).decode()

    def __del__(self):
        if getattr(self, "_handle", None) and _LIB is not None:
            _LIB.nvfp4_device_destroy(self._handle)
            self._handle = None

    def empty(self, shape, dtype):
        """Uninitialised device memory of `shape` and `dtype`."""
        return DeviceArray(self, shape, dtype)

    def array(self, data, shape, dtype):
        """A DeviceArray holding `data` (bytes-like, row-major)."""
        a = DeviceArray(self, shape, dtype)
        a.copy_from(data)
        return a


class DeviceArray:
    """Contiguous row-major device memory of one Device."""

    def __init__(self, device, shape, dtype):
        if dtype not in _ITEMSIZE:
            raise Error("dtype: expected one of %s, got %r" % (DTYPES, dtype))
        self.device, self.shape, self.dtype = device, tuple(shape), dtype
        n = 1
        for d in self.shape:
            n *= int(d)
        self.nbytes = n * _ITEMSIZE[dtype]
        ptr = ctypes.c_void_p()
        _check(_library().nvfp4_malloc(device._handle, self.nbytes,
                                       ctypes.byref(ptr)))
        self.ptr = ptr.value

    def __del__(self):
        if getattr(self, "ptr", None) and _LIB is not None:
            _LIB.nvfp4_free(self.device._handle, self.ptr)
            self.ptr = None

    def copy_from(self, data):
        data = bytes(data)
        if len(data) != self.nbytes:
            raise Error("data: expected %d bytes, got %d" %
                        (self.nbytes, len(data)))
        _check(_library().nvfp4_copy_to_device(
            self.device._handle, self.ptr, data, len(data)))

    def to_bytes(self):
        buf = ctypes.create_string_buffer(self.nbytes)
        _check(_library().nvfp4_copy_to_host(self.device._handle, buf,
                                             self.ptr, self.nbytes))
        return buf.raw


# DLPack (dlpack.h, version 0.8+): the structures a capsule points to.
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_DL_CUDA = 2
_DL_DTYPES = {(2, 32): "f32", (4, 16): "bf16", (2, 16): "f16", (0, 32): "i32",
              (1, 8): "u8", (0, 8): "i8"}
_CAI_DTYPES = {"<f4": "f32", "<f2": "f16", "<i4": "i32", "|u1": "u8",
               "|i1": "i8", "<V2": "bf16"}


def _from_dlpack(x, what):
    """(data, dtype, shape, strides in elements or None, device type)."""
    try:
        capsule = x.__dlpack__()
    except TypeError:
        capsule = x.__dlpack__(stream=None)
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object,
                                                  ctypes.c_char_p]
    # DLManagedTensor starts with its DLTensor. The capsule is not
    # consumed: its destructor releases the tensor; `x` keeps the memory.
    t = _DLTensor.from_address(get(capsule, b"dltensor"))
    key = (t.dtype.code, t.dtype.bits)
    if t.dtype.lanes != 1 or key not in _DL_DTYPES:
        raise Error("%s: unsupported DLPack dtype (code %d, %d bits, %d "
                    "lanes)" % (what, t.dtype.code, t.dtype.bits,
                                t.dtype.lanes))
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = (tuple(t.strides[i] for i in range(t.ndim))
               if t.strides else None)
    data = (t.data or 0) + t.byte_offset
    return data, _DL_DTYPES[key], shape, strides, t.device.device_type, capsule


def _takes(device):
    """What `device`'s backend takes, for the refusal of another kind of
    tensor."""
    return ("CUDA tensors" if device.backend == "cuda" else
            "nvfp4.DeviceArray")


_TORCH_DTYPES = {"torch.float32": "f32", "torch.bfloat16": "bf16",
                 "torch.float16": "f16", "torch.int32": "i32",
                 "torch.uint8": "u8", "torch.int8": "i8"}


_TORCH_DTYPE_OF = {}  # torch.dtype object -> ours (filled on first use)


def _from_torch(x, what, device):
    """A torch.Tensor's fields without DLPack: (data, dtype, shape, strides
    in elements). A DLPack capsule costs about 12 us a tensor on an H200's
    host (docs/Hopper.md, a call's host time); these attribute reads a few."""
    if not x.is_cuda or device.backend != "cuda":
        raise Error("%s: a torch tensor on %s cannot be used with the %s "
                    "backend (it takes %s)" %
                    (what, x.device.type, device.backend, _takes(device)))
    dtype = _TORCH_DTYPE_OF.get(x.dtype)
    if dtype is None:
        dtype = _TORCH_DTYPES.get(str(x.dtype))
        if dtype is None:
            raise Error("%s: unsupported torch dtype %s" % (what, x.dtype))
        _TORCH_DTYPE_OF[x.dtype] = dtype
    return x.data_ptr(), dtype, x.shape, x.stride()


def _tensor(x, what, device):
    """An nvfp4_tensor for argument `x` (and objects to keep alive)."""
    if isinstance(x, DeviceArray):
        if x.device is not device:
            raise Error("%s: a DeviceArray of another Device" % what)
        data, dtype, shape, strides, keep = x.ptr, x.dtype, x.shape, None, x
    elif type(x).__module__ == "torch" and hasattr(x, "data_ptr"):
        # torch.Tensor itself (not a subclass, which may override what
        # DLPack exports): its attributes, not a DLPack capsule.
        data, dtype, shape, strides = _from_torch(x, what, device)
        keep = x
    elif hasattr(x, "__dlpack__"):
        data, dtype, shape, strides, kind, capsule = _from_dlpack(x, what)
        if device.backend != "cuda" or kind != _DL_CUDA:
            raise Error("%s: a DLPack tensor on device type %d cannot be "
                        "used with the %s backend (it takes %s)" %
                        (what, kind, device.backend, _takes(device)))
        keep = (x, capsule)
    elif hasattr(x, "__cuda_array_interface__"):
        cai = x.__cuda_array_interface__
        if device.backend != "cuda":
            raise Error("%s: a CUDA array cannot be used with the %s backend"
                        " (it takes nvfp4.DeviceArray)" % (what,
                                                           device.backend))
        typestr = cai.get("typestr")
        if typestr not in _CAI_DTYPES:
            raise Error("%s: unsupported typestr %r" % (what, typestr))
        dtype, shape = _CAI_DTYPES[typestr], tuple(cai["shape"])
        data = cai["data"][0] if cai.get("data") else 0
        strides = None
        if cai.get("strides") is not None:
            size = _ITEMSIZE[dtype]
            if any(s % size for s in cai["strides"]):
                raise Error("%s: strides %r are not whole elements" %
                            (what, tuple(cai["strides"])))
            strides = tuple(s // size for s in cai["strides"])
        keep = x
    else:
        raise Error("%s: expected a tensor with __dlpack__ or "
                    "__cuda_array_interface__, or an nvfp4.DeviceArray, got "
                    "%s" % (what, type(x).__name__))
    rank = len(shape)
    array = _I64_ARRAYS[rank] if rank < len(_I64_ARRAYS) else \
        ctypes.c_int64 * max(rank, 1)
    # An array assigned to a POINTER(c_int64) field points at it (no
    # ctypes.cast: a microsecond each on a slow host).
    shape_arr = array(*shape)
    strides_arr = array(*strides) if strides is not None else None
    t = _Tensor(data or None, _DTYPE_INDEX[dtype], rank, shape_arr,
                strides_arr)
    return t, (keep, shape_arr, strides_arr)


_I64_ARRAYS = [ctypes.c_int64 * max(r, 1) for r in range(9)]
_DTYPE_INDEX = {d: i for i, d in enumerate(DTYPES)}


class _What:
    """An argument's name for messages ("input 0 (q)"), formatted only when
    a message is (a call that succeeds formats none)."""
    __slots__ = ("kind", "i", "name")

    def __init__(self, kind, i, name):
        self.kind, self.i, self.name = kind, i, name

    def __str__(self):
        return "%s %d (%s)" % (self.kind, self.i, self.name)


def _tensors(values, kind, infos, device, keep):
    """The nvfp4_tensor array of arguments `values` (inputs or outputs,
    `kind`, described by `infos`); what must stay alive goes to `keep`."""
    arr = (_Tensor * max(len(values), 1))()
    for i, (v, info) in enumerate(zip(values, infos)):
        arr[i], k = _tensor(v, _What(kind, i, info.name), device)
        keep.append(k)
    return arr


def _stream_handle(stream):
    """The CUstream handle of a call's `stream` argument: None (launch and
    wait), an int, or an object with `cuda_stream`; handle 0 (torch's
    default stream) becomes CU_STREAM_LEGACY."""
    handle = getattr(stream, "cuda_stream", stream)
    if handle is not None and not isinstance(handle, int):
        raise Error("stream: expected a CUstream handle (int) or an object "
                    "with cuda_stream, got %s" % type(stream).__name__)
    return _CU_STREAM_LEGACY if handle == 0 else handle


class _Arguments:
    """nvfp4_launch's arguments for one call (`call`, in order) and what must
    stay alive while they are used (`keep`)."""
    __slots__ = ("call", "keep")

    def __init__(self, call, keep):
        self.call, self.keep = call, keep


class BoundLaunch:
    """A launch of a kernel on fixed tensors (Kernel.bind): calling it
    launches again. The stream is the one bound unless `stream=` names
    another."""

    def __init__(self, kernel, args, out):
        self.kernel, self._args, self.out = kernel, args, out

    def __call__(self, stream=None):
        call = self._args.call
        if stream is not None:
            call = call[:-1] + [_stream_handle(stream)]
        _check(_library().nvfp4_launch(*call))
        return self.out


class Kernel:
    """A compiled function of one nvfp4 op (nvfp4.compile)."""

    def __init__(self, handle):
        self._handle = handle
        lib = _library()

        def infos(is_output, n):
            out = []
            for i in range(n):
                info = _TensorInfo()
                _check(lib.nvfp4_kernel_tensor(handle, is_output, i,
                                               ctypes.byref(info)))
                out.append(TensorInfo(info.name.decode(), DTYPES[info.dtype],
                                      info.shape[:info.rank]))
            return out

        self.inputs = infos(0, lib.nvfp4_kernel_num_inputs(handle))
        self.outputs = infos(1, lib.nvfp4_kernel_num_outputs(handle))
        self.metadata = json.loads(lib.nvfp4_kernel_metadata(handle).decode())
        self.workspace_bytes = lib.nvfp4_kernel_workspace_bytes(handle)

    def __del__(self):
        if getattr(self, "_handle", None) and _LIB is not None:
            _LIB.nvfp4_kernel_destroy(self._handle)
            self._handle = None

    @property
    def ptx(self):
        return _library().nvfp4_kernel_ptx(self._handle).decode()

    @property
    def cubin(self):
        """The cubin (compiled with cubin=1), else None."""
        n = ctypes.c_size_t()
        p = _library().nvfp4_kernel_cubin(self._handle, ctypes.byref(n))
        return ctypes.string_at(p, n.value) if p else None

    @property
    def artifact(self):
        """The kernel as bytes that load() takes (nvfp4_kernel_artifact)."""
        n = ctypes.c_size_t()
        p = _library().nvfp4_kernel_artifact(self._handle, ctypes.byref(n))
        return ctypes.string_at(p, n.value)

    def save(self, path):
        """Writes the artifact to `path`: load() it where there is no
        compiler (libnvfp4_runtime.so)."""
        _check(_library().nvfp4_kernel_save(self._handle, os.fsencode(path)))

    def __call__(self, *inputs, out=None, device=None, workspace=None,
                 stream=None):
        """Launches on `inputs` (the function's arguments, in order), writing
        `out` (its results: one tensor or a tuple). Returns `out`. `stream`
        (a CUstream as an int, or an object with `cuda_stream`, such as
        torch.cuda.current_stream()) enqueues the launch there and returns
        at once; it needs `workspace` when the kernel has scratch. Handle 0
        (torch's default stream) is the legacy default stream, passed on as
        CU_STREAM_LEGACY: the C API reads a NULL stream as "launch and
        wait"."""
        args = self._arguments(inputs, out, device, workspace, stream)
        _check(_library().nvfp4_launch(*args.call))
        return out

    def bind(self, *inputs, out=None, device=None, workspace=None,
             stream=None):
        """A launch on these tensors, converted once: calling the result
        launches again on the same memory (whose contents may change) with
        neither the tensors' conversion nor the argument checks of this
        package, about half of a call's host time (docs/CAPI.md, "Bound
        launches"). The arguments are those of a call; the result keeps the
        tensors alive and takes `stream=` to enqueue on another stream. The
        library still checks every launch (shapes, overlaps)."""
        return BoundLaunch(self, self._arguments(inputs, out, device,
                                                 workspace, stream), out)

    def _arguments(self, inputs, out, device, workspace, stream):
        """The C API's launch arguments for a call (_Arguments)."""
        if device is None:
            raise Error("device: pass device=nvfp4.Device(...)")
        if out is None:
            raise Error("out: pass the output tensors (%s)" %
                        ", ".join(o.name for o in self.outputs))
        outs = out if isinstance(out, (tuple, list)) else (out,)
        if len(inputs) != len(self.inputs) or len(outs) != len(self.outputs):
            raise Error("expected %d inputs (%s) and %d outputs (%s), got %d "
                        "and %d" % (len(self.inputs),
                                    ", ".join(i.name for i in self.inputs),
                                    len(self.outputs),
                                    ", ".join(o.name for o in self.outputs),
                                    len(inputs), len(outs)))
        keep = []
        ins = _tensors(inputs, "input", self.inputs, device, keep)
        outs_arr = _tensors(outs, "output", self.outputs, device, keep)
        ws, ws_bytes = None, 0
        if workspace is not None:
            if not isinstance(workspace, DeviceArray):
                raise Error("workspace: expected an nvfp4.DeviceArray")
            ws, ws_bytes = workspace.ptr, workspace.nbytes
            keep.append(workspace)
        return _Arguments(
            [self._handle, device._handle, ins, len(inputs), outs_arr,
             len(outs), ws, ws_bytes, _stream_handle(stream)],
            keep + [device])

    def check(self, device, seed=1):
        """Runs on random inputs from `seed` and compares with float64:
        (passed, nvfp4-run's report)."""
        passed = ctypes.c_int(0)
        report = ctypes.create_string_buffer(1 << 16)
        _check(_library().nvfp4_run_check(self._handle, device._handle, seed,
                                          ctypes.byref(passed), report,
                                          len(report)))
        return bool(passed.value), report.value.decode()


    def make_inputs(self, seed=1):
        """Host bytes for every input, as check() would make them for
        `seed` (valid lengths, indices, caches): for checking another path
        with check_outputs."""
        bufs = [ctypes.create_string_buffer(info.nbytes)
                for info in self.inputs]
        arr = (ctypes.c_void_p * max(len(bufs), 1))(
            *[ctypes.cast(b, ctypes.c_void_p) for b in bufs])
        _check(_library().nvfp4_make_inputs(self._handle, seed, arr,
                                            len(bufs)))
        return [b.raw for b in bufs]

    def check_outputs(self, inputs, outputs):
        """Compares outputs computed elsewhere (host-lowered code, another
        runtime) with the float64 reference: `inputs` and `outputs` are
        bytes-like host copies of the function's arguments and results.
        Returns (passed, report)."""
        def pointers(values, infos, kind):
            if len(values) != len(infos):
                raise Error("expected %d %s, got %d" % (len(infos), kind,
                                                         len(values)))
            bufs = []
            for i, (v, info) in enumerate(zip(values, infos)):
                n = info.nbytes
                b = bytes(v)
                if len(b) != n:
                    raise Error("%s: expected %d bytes, got %d" %
                                (_What(kind[:-1], i, info.name), n, len(b)))
                bufs.append(ctypes.create_string_buffer(b, len(b)))
            arr = (ctypes.c_void_p * max(len(bufs), 1))(
                *[ctypes.cast(b, ctypes.c_void_p) for b in bufs])
            return arr, bufs
        ins, k1 = pointers(inputs, self.inputs, "inputs")
        outs, k2 = pointers(outputs, self.outputs, "outputs")
        passed = ctypes.c_int(0)
        report = ctypes.create_string_buffer(1 << 16)
        _check(_library().nvfp4_check_outputs(
            self._handle, ins, len(inputs), outs, len(outputs),
            ctypes.byref(passed), report, len(report)))
        return bool(passed.value), report.value.decode()


def compile(mlir, **options):
    """Compiles MLIR text holding one function of one nvfp4 op. Options:
    num_sms, min_piece_keys, poly_exp2, cluster_merge, p_shared, chip,
    features, opt_level, cta_group, function, cubin (1: also run ptxas;
    Kernel.cubin)."""
    handle = ctypes.c_void_p()
    text = mlir.encode() if isinstance(mlir, str) else bytes(mlir)
    _check(_library().nvfp4_compile(text, len(text), _options(options),
                                    ctypes.byref(handle)))
    return Kernel(handle)


def compile_file(path, **options):
    """compile() of a file."""
    handle = ctypes.c_void_p()
    _check(_library().nvfp4_compile_file(os.fsencode(path),
                                         _options(options),
                                         ctypes.byref(handle)))
    return Kernel(handle)


def load(artifact):
    """A kernel saved by Kernel.save: a path (str or os.PathLike), or the
    artifact's bytes (Kernel.artifact). libnvfp4_runtime.so, which has no
    compiler, loads it too."""
    handle = ctypes.c_void_p()
    if isinstance(artifact, (bytes, bytearray, memoryview)):
        data = bytes(artifact)
        _check(_library().nvfp4_kernel_load(data, len(data),
                                            ctypes.byref(handle)))
    else:
        _check(_library().nvfp4_kernel_load_file(os.fsencode(artifact),
                                                 ctypes.byref(handle)))
    return Kernel(handle)
