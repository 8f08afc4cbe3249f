// The DeepSeek-V4 merge of two attention branches by their LSE, the sink
// added once (nvfp4.attention_merge): a plain kernel (no tcgen05), so the
// host path can be compiled for sm_90a and run on an H200 through the real
// driver (scripts/device/host_path_h200.sh) as well as on the emulator
// (test/Host/merge.test).
func.func @merge(%o1: tensor<4x1x128x512xbf16>, %l1: tensor<4x128x1xf32>,
                 %o2: tensor<4x1x128x512xbf16>, %l2: tensor<4x128x1xf32>,
                 %sink: tensor<128xf32>)
    -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>) {
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2 sink(%sink)
      : (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>,
         tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>, tensor<128xf32>)
      -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
  return %o, %lse : tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
}
