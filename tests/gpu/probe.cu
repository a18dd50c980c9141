// A CUDA program whose GPU work is known exactly, for checking live capture on a real GPU (tests/gpu/run.sh):
// ITER launches each of two kernels with fixed, distinct launch shapes, ITER/10 launches of a third with static and
// dynamic shared memory, GEMMS cuBLAS matmuls, one host-to-device and one device-to-host copy, and one memset. It
// prints what it did, each kernel's registers and shared memory as the runtime reports them
// (cudaFuncGetAttributes), and how long the GPU part took, as one JSON line.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void kinetoscope_probe_fill(float* data, int n, float value) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x + blockIdx.y * gridDim.x * blockDim.x;
    if (i < n) data[i] = value;
}

__global__ void kinetoscope_probe_scale(float* data, int n, float factor) {
    const int i = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}

// Static shared memory (a tile) and dynamic (the launch's third argument), so that both reach the capture.
__global__ void kinetoscope_probe_tile_sum(const float* data, float* out, int n) {
    __shared__ float tile[256];
    extern __shared__ float spill[];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? data[i] : 0.0f;
    spill[threadIdx.x] = tile[threadIdx.x] * 2.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) tile[threadIdx.x] += tile[threadIdx.x + stride] + spill[threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}

// The whole process's CPU time and peak memory: under capture they include the agent's, which is how its cost
// is measured (tests/gpu/million.sh).
double cpuSeconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

long maxRssKb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

constexpr int tileDynamicShared = 256 * sizeof(float);

#define CHECK(call)                                                                                                   \
    do {                                                                                                              \
        const cudaError_t status = (call);                                                                            \
        if (status != cudaSuccess) {                                                                                  \
            std::fprintf(stderr, "probe: %s: %s\n", #call, cudaGetErrorString(status));                              \
            return 1;                                                                                                 \
        }                                                                                                             \
    } while (0)

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? std::atoi(argv[1]) : 1000;
    const int gemms = argc > 2 ? std::atoi(argv[2]) : 10;
    const int n = 1 << 20, m = 256;
    float *data = nullptr, *a = nullptr, *b = nullptr, *c = nullptr;
    CHECK(cudaMalloc(&data, n * sizeof(float)));
    CHECK(cudaMalloc(&a, m * m * sizeof(float)));
    CHECK(cudaMalloc(&b, m * m * sizeof(float)));
    CHECK(cudaMalloc(&c, m * m * sizeof(float)));
    cublasHandle_t blas;
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "probe: cublasCreate failed\n");
        return 1;
    }
    std::vector<float> host(n, 1.0f);
    CHECK(cudaDeviceSynchronize());

    const auto start = std::chrono::steady_clock::now();
    CHECK(cudaMemcpy(data, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(a, 0, m * m * sizeof(float)));
    for (int i = 0; i < iterations; ++i) {
        kinetoscope_probe_fill<<<dim3(7, 3, 1), dim3(128, 1, 1)>>>(data, n, float(i));
        kinetoscope_probe_scale<<<dim3(13, 1, 1), dim3(64, 2, 1)>>>(data, n, 0.5f);
        if (i % 10 == 0)
            kinetoscope_probe_tile_sum<<<dim3(5, 1, 1), dim3(256, 1, 1), tileDynamicShared>>>(data, c, n);
    }
    const float one = 1.0f, zero = 0.0f;
    for (int i = 0; i < gemms; ++i)
        if (cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, a, m, b, m, &zero, c, m) != CUBLAS_STATUS_SUCCESS) {
            std::fprintf(stderr, "probe: cublasSgemm failed\n");
            return 1;
        }
    CHECK(cudaMemcpy(host.data(), data, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaDeviceSynchronize());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    cudaFuncAttributes fill{}, scale{}, tile{};
    CHECK(cudaFuncGetAttributes(&fill, kinetoscope_probe_fill));
    CHECK(cudaFuncGetAttributes(&scale, kinetoscope_probe_scale));
    CHECK(cudaFuncGetAttributes(&tile, kinetoscope_probe_tile_sum));
    const int tiles = (iterations + 9) / 10;
    std::printf("{\"fill\": %d, \"scale\": %d, \"tile_sum\": %d, \"gemms\": %d, \"htod\": 1, \"dtoh\": 1, "
                "\"memsets\": 1, \"copy_bytes\": %zu, \"memset_bytes\": %zu, "
                "\"registers\": {\"fill\": %d, \"scale\": %d, \"tile_sum\": %d}, "
                "\"shared\": {\"fill\": %zu, \"scale\": %zu, \"tile_sum\": %zu}, \"elapsed_ms\": %.3f, "
                "\"cpu_s\": %.3f, \"max_rss_kb\": %ld}\n",
                iterations, iterations, tiles, gemms, n * sizeof(float), m * m * sizeof(float), fill.numRegs,
                scale.numRegs, tile.numRegs, fill.sharedSizeBytes, scale.sharedSizeBytes,
                tile.sharedSizeBytes + tileDynamicShared, ms, cpuSeconds(), maxRssKb());
    cublasDestroy(blas);
    cudaFree(data), cudaFree(a), cudaFree(b), cudaFree(c);
    return 0;
}
