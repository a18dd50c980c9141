// A CUDA program whose GPU work is known exactly, for checking live capture on a real GPU (tests/gpu/run.sh):
// ITER launches each of two kernels with fixed, distinct launch shapes, GEMMS cuBLAS matmuls, one host-to-device and
// one device-to-host copy, and one memset. It prints what it did and how long the GPU part took, as one JSON line.
#include <cublas_v2.h>
#include <cuda_runtime.h>

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

    std::printf("{\"fill\": %d, \"scale\": %d, \"gemms\": %d, \"htod\": 1, \"dtoh\": 1, \"memsets\": 1, \"elapsed_ms\": %.3f}\n",
                iterations, iterations, gemms, ms);
    cublasDestroy(blas);
    cudaFree(data), cudaFree(a), cudaFree(b), cudaFree(c);
    return 0;
}
