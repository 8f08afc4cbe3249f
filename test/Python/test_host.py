"""Host-lowered functions called from Python (test/Host/*.test, docs/Host.md).

An example lowered whole (nvfp4-opt --nvfp4-to-llvm, mlir-translate, llc)
and linked into a shared library with libnvfp4_host_runtime is called
through nvfp4.host on inputs the C API makes for the same function
(Kernel.make_inputs: valid lengths, sparse indices, fp8 caches with their
scales), and its results are checked against float64 by the C API
(Kernel.check_outputs). Standard library only.

Usage: test_host.py LIB.so LIBNVFP4_HOST_RUNTIME.so EXAMPLE.mlir [SEED]
(the function is the example's only public one).
"""
import sys

import nvfp4
from nvfp4.host import HostLibrary


def main(libpath, runtime, example, seed=1):
    k = nvfp4.compile_file(example)
    name = k.metadata["function"]
    inputs = k.make_inputs(seed)
    host = HostLibrary(libpath, runtime=runtime)
    args = [(host.upload(data), info.shape)
            for data, info in zip(inputs, k.inputs)]
    results = host.call(name, args,
                        result_ranks=[len(o.shape) for o in k.outputs])
    print("backend", host.backend, name, "results",
          " ".join(str(shape) for _, _, shape in results))
    outputs = [host.download(aligned, info.nbytes)
               for (_, aligned, _), info in zip(results, k.outputs)]
    for allocated, _, _ in results:
        host.free(allocated)
    for ptr, _ in args:
        host.free(ptr)
    passed, report = k.check_outputs(inputs, outputs)
    print(report, end="")
    # Bad input to the check names the argument.
    for bad in ([inputs[:-1], outputs], [[inputs[0], inputs[1][:-2]] +
                                         inputs[2:], outputs]):
        try:
            k.check_outputs(*bad)
        except nvfp4.Error as e:
            print("error:", e)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3],
                  int(sys.argv[4]) if len(sys.argv) > 4 else 1))
