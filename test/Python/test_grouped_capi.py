"""The grouped matmul's outs form through the C API (test/Host/grouped.test):
input 7 is D's initial value; the output is written into a separate buffer
(the initial values copied first) or in place, each checked against
float64; a separate output on a stream is refused (the copy could not be
ordered there)."""
import sys

import nvfp4

k = nvfp4.compile_file(sys.argv[1])
print("inputs", " ".join("%s %s" % (i.name, i.dtype) for i in k.inputs))
dev = nvfp4.Device("emulator")
print("check:", k.check(dev, seed=2)[1].strip().splitlines()[-1])
data = k.make_inputs(3)
ins = [dev.array(b, i.shape, i.dtype) for b, i in zip(data, k.inputs)]
out = dev.array(b"\xff" * k.outputs[0].nbytes, k.outputs[0].shape, "f32")
k(*ins, out=out, device=dev)
print("into a separate output:",
      k.check_outputs(data, [out.to_bytes()])[1].strip().splitlines()[-1])
k(*ins, out=ins[7], device=dev)
print("in place:",
      k.check_outputs(data, [ins[7].to_bytes()])[1].strip().splitlines()[-1])
try:
    k(*ins, out=out, device=dev, stream=1)
except nvfp4.Error as e:
    print("separate output on a stream: error:", e)
