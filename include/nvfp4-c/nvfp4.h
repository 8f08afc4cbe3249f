/*===- nvfp4.h - The nvfp4 C API ------------------------------------*- C -*-===*
 *
 * Compile a function that uses one nvfp4 op (nvfp4.attention, ...) to a
 * kernel, read how it is launched, launch it on device buffers, or run it on
 * random inputs and check it against float64. docs/CAPI.md has the contract
 * and a worked example; python/nvfp4 wraps it.
 *
 * Two libraries implement it: libnvfp4 (the compiler and the runtime; it
 * needs libMLIR) and libnvfp4_runtime (no compiler, no MLIR: it runs kernels
 * compiled elsewhere and saved with nvfp4_kernel_save; its nvfp4_compile
 * fails with NVFP4_ERROR_UNSUPPORTED).
 *
 * Versioning: NVFP4_API_VERSION is the version of this header;
 * nvfp4_api_version() that of the library. Within one major version
 * functions and enum values are only added, never changed or removed.
 *
 * Errors: every function that can fail returns an nvfp4_status; on failure
 * nvfp4_last_error() (per thread) says what was wrong, naming the argument
 * (`input 1 (kv): expected bf16 [4, 4096, 1, 512], got f32 ...`). Bad input
 * never crashes, hangs or launches.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NVFP4_C_NVFP4_H
#define NVFP4_C_NVFP4_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NVFP4_API_VERSION_MAJOR 1
#define NVFP4_API_VERSION_MINOR 1
#define NVFP4_API_VERSION                                                      \
  (NVFP4_API_VERSION_MAJOR * 1000 + NVFP4_API_VERSION_MINOR)

/* The library's NVFP4_API_VERSION. */
int nvfp4_api_version(void);

typedef enum nvfp4_status {
  NVFP4_OK = 0,
  NVFP4_ERROR_INVALID_ARGUMENT = 1, /* a null pointer, a bad tensor, ... */
  NVFP4_ERROR_COMPILE = 2,          /* the MLIR input: parse, verify, lower */
  NVFP4_ERROR_DEVICE = 3,           /* the backend: memory, load, launch */
  NVFP4_ERROR_UNSUPPORTED = 4       /* a valid request this build cannot do */
} nvfp4_status;

/* The message of the last failing call on this thread ("" if none). */
const char *nvfp4_last_error(void);

/* Element types of tensors. */
typedef enum nvfp4_dtype {
  NVFP4_F32 = 0,
  NVFP4_BF16 = 1,
  NVFP4_F16 = 2,
  NVFP4_I32 = 3,
  NVFP4_U8 = 4, /* bytes: fp8 caches, packed fp4, scale factors */
  NVFP4_I8 = 5
} nvfp4_dtype;

/* "f32", "bf16", "f16", "i32", "u8", "i8"; NULL for an unknown value. */
const char *nvfp4_dtype_name(int dtype);

/* A tensor in device memory: `data` is a device address (of the device's
 * backend), `shape` has `rank` extents, `strides` (in elements) may be NULL
 * for a contiguous row-major tensor; kernels take only contiguous
 * row-major tensors. */
typedef struct nvfp4_tensor {
  void *data;
  int32_t dtype; /* nvfp4_dtype */
  int32_t rank;
  const int64_t *shape;
  const int64_t *strides;
} nvfp4_tensor;

/*--- Compiling ------------------------------------------------------------*/

typedef struct nvfp4_kernel nvfp4_kernel;

/* Compiles `mlir` (`size` bytes of MLIR text; size 0: NUL-terminated) to a
 * kernel. The text holds one public func.func (or `function=NAME` in
 * `options` picks one) whose body is one nvfp4 op on the function's
 * arguments, returning its results. `options` (may be NULL): space-separated
 * `num-sms=148`, `chip=sm_100a`, `features=+ptx88`, `cta-group=0`,
 * `function=NAME`, `cubin=1` (also run ptxas: nvfp4_kernel_cubin).
 * A matmul's `outs(%init)` operand is an argument too: an input named as
 * the result, whose bytes the output starts from (nvfp4_launch copies them
 * unless the output is the same buffer). */
nvfp4_status nvfp4_compile(const char *mlir, size_t size, const char *options,
                           nvfp4_kernel **kernel);
nvfp4_status nvfp4_compile_file(const char *path, const char *options,
                                nvfp4_kernel **kernel);
void nvfp4_kernel_destroy(nvfp4_kernel *kernel);

/* The function's arguments (inputs) and results (outputs), in order. */
size_t nvfp4_kernel_num_inputs(const nvfp4_kernel *kernel);
size_t nvfp4_kernel_num_outputs(const nvfp4_kernel *kernel);

typedef struct nvfp4_tensor_info {
  const char *name; /* the op's tensor: "q", "kv", "o", "lse", ... */
  int32_t dtype;
  int32_t rank;
  int64_t shape[8];
} nvfp4_tensor_info;

/* Input or output `index` (is_output 0 or 1). */
nvfp4_status nvfp4_kernel_tensor(const nvfp4_kernel *kernel, int is_output,
                                 size_t index, nvfp4_tensor_info *info);

/* The PTX (NUL-terminated) the kernel runs. */
const char *nvfp4_kernel_ptx(const nvfp4_kernel *kernel);

/* The cubin (ptxas's output for the chip), compiled with the option
 * `cubin=1`; NULL (and *size 0) without it. The cuda backend launches it
 * instead of compiling the PTX at load time. */
const void *nvfp4_kernel_cubin(const nvfp4_kernel *kernel, size_t *size);

/* How it is launched, as JSON (owned by the kernel): the function name, the
 * inputs and outputs, the scratch bytes a launch needs, and every launch in
 * order with its kernel name, grid, block, cluster, dynamic shared memory
 * and its parameters (tensor maps, buffers, scalars). docs/CAPI.md. */
const char *nvfp4_kernel_metadata(const nvfp4_kernel *kernel);

/* Bytes of device scratch memory one launch needs (split-KV partials). */
uint64_t nvfp4_kernel_workspace_bytes(const nvfp4_kernel *kernel);

/*--- Saving and loading (since 1.1) ---------------------------------------*/

/* The kernel as an artifact (owned by the kernel; *size gets its bytes):
 * versioned JSON text with the function's inputs and outputs, how every
 * launch is made (the kernel's whole harness), the PTX and, compiled with
 * `cubin=1`, the cubin. Any nvfp4 library of this major version loads it,
 * libnvfp4_runtime included, and launches and checks it as the compiling
 * library does. docs/CAPI.md has the format. */
const char *nvfp4_kernel_artifact(const nvfp4_kernel *kernel, size_t *size);
/* Writes the artifact to the file `path`. */
nvfp4_status nvfp4_kernel_save(const nvfp4_kernel *kernel, const char *path);
/* A kernel from an artifact's `size` bytes, or from the file `path`. Bad
 * artifacts are refused with a message naming the member
 * (NVFP4_ERROR_INVALID_ARGUMENT); a newer format version is
 * NVFP4_ERROR_UNSUPPORTED. */
nvfp4_status nvfp4_kernel_load(const void *data, size_t size,
                               nvfp4_kernel **kernel);
nvfp4_status nvfp4_kernel_load_file(const char *path, nvfp4_kernel **kernel);

/*--- Devices and memory ---------------------------------------------------*/

typedef struct nvfp4_device nvfp4_device;

/* backend: "cuda" (the CUDA driver, GPU `ordinal`) or "emulator" (the PTX
 * emulator, which runs sm_100a kernels without a GPU). */
nvfp4_status nvfp4_device_create(const char *backend, int ordinal,
                                 nvfp4_device **device);
void nvfp4_device_destroy(nvfp4_device *device);
/* "cuda" or "emulator". */
const char *nvfp4_device_backend(const nvfp4_device *device);

nvfp4_status nvfp4_malloc(nvfp4_device *device, size_t bytes, void **ptr);
nvfp4_status nvfp4_free(nvfp4_device *device, void *ptr);
nvfp4_status nvfp4_copy_to_device(nvfp4_device *device, void *dst,
                                  const void *src, size_t bytes);
nvfp4_status nvfp4_copy_to_host(nvfp4_device *device, void *dst,
                                const void *src, size_t bytes);

/*--- Launching ------------------------------------------------------------*/

/* Launches the kernel (and the kernels after it) on `inputs` and `outputs`,
 * checked against the function's types and shapes first. `workspace` is
 * device scratch of at least nvfp4_kernel_workspace_bytes (NULL: allocated
 * and freed by the call). `stream` NULL: the call returns when the kernels
 * have finished. A CUstream (cuda backend): the kernels are enqueued there
 * in order and the call returns at once (for the legacy default stream,
 * whose handle is 0, pass CU_STREAM_LEGACY, (void *)0x1, since NULL means
 * "wait"); the caller's workspace is then
 * required, and the inputs must not change until the stream reaches the
 * kernels. The emulator runs every launch before returning, whatever the
 * stream. Tensor maps live in device memory kept by the device, one per
 * distinct map (buffer address and shape). */
nvfp4_status nvfp4_launch(nvfp4_kernel *kernel, nvfp4_device *device,
                          const nvfp4_tensor *inputs, size_t num_inputs,
                          const nvfp4_tensor *outputs, size_t num_outputs,
                          void *workspace, size_t workspace_bytes,
                          void *stream);

/* Runs the kernel on random inputs made from `seed` (outputs poisoned) and
 * compares every output with the float64 reference. *pass is 1 on PASS.
 * `report` (may be NULL) receives the nvfp4-run report, NUL-terminated and
 * truncated to `report_size` bytes. */
nvfp4_status nvfp4_run_check(nvfp4_kernel *kernel, nvfp4_device *device,
                             uint64_t seed, int *pass, char *report,
                             size_t report_size);

/* Fills host buffers for the function's inputs (`inputs[i]` holds input
 * i's bytes: its dtype size times its shape) with what nvfp4_run_check
 * would use for `seed`: values the reference accepts (lengths in range,
 * distinct pages, sparse indices into the cache, fp8 caches with their
 * scales, ...). For checking another path with nvfp4_check_outputs. */
nvfp4_status nvfp4_make_inputs(const nvfp4_kernel *kernel, uint64_t seed,
                               void *const *inputs, size_t num_inputs);

/* Checks outputs computed elsewhere (host-lowered code, another runtime)
 * against the float64 reference of the kernel's op: `inputs` and `outputs`
 * are host copies of the function's arguments and results (row-major, the
 * function's dtypes and shapes), the reference's thresholds apply. *pass is
 * 1 on PASS; `report` as for nvfp4_run_check. */
nvfp4_status nvfp4_check_outputs(const nvfp4_kernel *kernel,
                                 const void *const *inputs, size_t num_inputs,
                                 const void *const *outputs,
                                 size_t num_outputs, int *pass, char *report,
                                 size_t report_size);

#ifdef __cplusplus
}
#endif

#endif /* NVFP4_C_NVFP4_H */
