"""python-stream.test: nvfp4.Kernel.__call__'s stream argument against the
mock driver (NVFP4_MOCK_RECORD): a split-KV decode for sm_90a launched with
no stream (launch and wait), on a stream object whose handle is 0 (torch's
default stream: passed on as CU_STREAM_LEGACY, not as NULL), and on an int
handle; then a bound launch (Kernel.bind) three times. The record shows
each launch's stream and attributes."""
import sys

import nvfp4

OP = """
func.func @dec(%q: tensor<1x1x16x64xbf16>, %k: tensor<1x4096x1x64xbf16>,
               %v: tensor<1x4096x1x64xbf16>)
    -> (tensor<1x1x16x64xbf16>, tensor<1x16x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<1x1x16x64xbf16>, tensor<1x4096x1x64xbf16>,
         tensor<1x4096x1x64xbf16>)
      -> (tensor<1x1x16x64xbf16>, tensor<1x16x1xf32>)
  return %o, %lse : tensor<1x1x16x64xbf16>, tensor<1x16x1xf32>
}
"""


class Stream:
    cuda_stream = 0


# cluster_merge=0: the balanced plan and its combine kernel (one unit of
# 32 tiles on 8 SMs would otherwise take the cluster merge: one kernel).
k = nvfp4.compile(OP, chip="sm_90a", features="+ptx80", num_sms=8,
                  cluster_merge=0)
dev = nvfp4.Device("cuda")
ins = [dev.empty(t.shape, t.dtype) for t in k.inputs]
outs = tuple(dev.empty(t.shape, t.dtype) for t in k.outputs)
ws = dev.empty((k.workspace_bytes,), "u8")
for name, stream in (("none", None), ("default", Stream()), ("int", 0x5a0)):
    print("call", name, file=sys.stderr)
    k(*ins, out=outs, device=dev, workspace=ws, stream=stream)
print("launched")
# A bound launch (Kernel.bind): the tensors converted once, launched twice
# on the bound stream and once on another; its output is the call's.
bound = k.bind(*ins, out=outs, device=dev, workspace=ws, stream=0x6b0)
assert bound() is outs and bound() is outs
bound(stream=Stream())
# What a call refuses, bind refuses when binding.
try:
    k.bind(*ins[:-1], out=outs, device=dev, workspace=ws)
except nvfp4.Error as e:
    print("bind refused:", e)
print("bound")
# The cluster merge (the default; its 8 CTAs on at most half of 16 SMs):
# one kernel, launched in clusters of 8.
m = nvfp4.compile(OP, chip="sm_90a", features="+ptx80", num_sms=16)
m(*ins, out=outs, device=dev, workspace=dev.empty((max(1, m.workspace_bytes),), "u8"),
  stream=0x7c0)
print("merged")
