// The merge of merge.mlir written into the caller's buffers
// (materialize_in_destination: memref.copy, then gpu.memcpy into memory the
// host runtime did not allocate). scripts/device/python_torch_h200.py
// calls it on torch tensors on the H200; the host runtime copies with
// cuMemcpy there (Device::copyUnified).
func.func @merge_into(%o1: tensor<4x1x128x512xbf16>, %l1: tensor<4x128x1xf32>,
                      %o2: tensor<4x1x128x512xbf16>, %l2: tensor<4x128x1xf32>,
                      %sink: tensor<128xf32>,
                      %o_out: tensor<4x1x128x512xbf16>,
                      %lse_out: tensor<4x128x1xf32>)
    -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>) {
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2 sink(%sink)
      : (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>,
         tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>, tensor<128xf32>)
      -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
  %ro = bufferization.materialize_in_destination %o in %o_out
      : (tensor<4x1x128x512xbf16>, tensor<4x1x128x512xbf16>)
      -> tensor<4x1x128x512xbf16>
  %rl = bufferization.materialize_in_destination %lse in %lse_out
      : (tensor<4x128x1xf32>, tensor<4x128x1xf32>) -> tensor<4x128x1xf32>
  return %ro, %rl : tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
}
