// Kernel categories and tensor-core use, on real kernel names: the corpus's (../shared/traces), the ones
// quoted in the trust issue (softmax that made a wrong "fuse elementwise" recommendation, DeepEP all-to-all
// shown as "other", FP8 grouped GEMMs) and names from other public Kineto traces. docs/DEFINITIONS.md lists
// the rules.
#include "analysis/ops/kernelclass.h"

#include <QtTest>

using namespace kinetoscope;

class TestKernelClass : public QObject {
    Q_OBJECT
  private slots:
    void classify_data();
    void classify();
    void everyCategoryHasAName();
};

void TestKernelClass::classify_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("category");
    QTest::addColumn<bool>("tensorCores");
    auto row = [](const char* label, const char* name, const char* category, bool tc) {
        QTest::newRow(label) << QString::fromUtf8(name) << QString::fromLatin1(category) << tc;
    };
    // TorchInductor: its own breakdown; its mm / conv / attention templates by what they compute.
    row("inductor pointwise", "triton_poi_fused_addmm_gelu_view_15", "pointwise", false);
    row("inductor reduction of a layer norm",
        "triton_red_fused_add_addmm_mul_native_layer_norm_split_unsqueeze_view_16", "reduction", false);
    row("inductor persistent softmax", "triton_per_fused__softmax_2", "persistent_reduction", false);
    row("inductor pointwise named after sdpa",
        "triton_poi_fused__scaled_dot_product_flash_attention_cat_transpose_view_10", "pointwise", false);
    row("inductor mm template", "triton_tem_fused_mm_3", "gemm", false);
    row("inductor addmm template", "triton_tem_fused_addmm_relu_0", "gemm", false);
    row("inductor flex attention", "triton_tem_fused_flex_attention_0", "attention", false);
    row("inductor conv template", "triton_tem_fused_convolution_1", "conv", false);
    row("other inductor template", "triton_tem_fused_0", "template", false);
    row("user triton kernel", "triton_kernel_custom", "triton", false);
    // GEMMs under every vendor's name.
    row("cublas fp32", "ampere_sgemm_128x64_nn", "gemm", false);
    row("cublas volta fp32", "volta_sgemm_128x64_nt", "gemm", false);
    row("cublas volta hmma", "volta_h884gemm_64x64_ldg8_nn", "gemm", true);
    row("cublas ampere fp16", "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_64x3_nn", "gemm", true);
    row("cublas sm80 xmma", "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32", "gemm", true);
    row("cublas sm90 bf16",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_"
        "off_kernel__5x_cublas",
        "gemm", true);
    row("cublas sm90 fp32 operands",
        "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1", "gemm", false);
    row("cublas sm90 tf32", "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32", "gemm", true);
    // A GH200 transformer's FP32 GEMMs: Ampere-built xmma kernels whose inner loop is SIMT FMA (ffma).
    row("cublas sm80 fp32 ffma",
        "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_"
        "execute_"
        "kernel__5x_cublas",
        "gemm", false);
    row("cublas sm80 fp32 operands", "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x16_stage4",
        "gemm", false);
    row("cublas sm80 tf32", "sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x16_stage4_warpsize2x2x1",
        "gemm", true);
    row("cublas sm75 fp16", "sm75_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32", "gemm", true);
    row("cublas sm86 bf16 implicit gemm conv",
        "sm86_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x32", "conv", true);
    row("cublas nvjet", "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT", "gemm", true);
    row("cublaslt split-k reduce",
        "void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, true, "
        "false, false>(cublasLt::cublasSplitKParams<float>, float const*, __nv_bfloat16 const*, "
        "__nv_bfloat16*, float const*, float const*, __nv_bfloat16 const*, float const*, __nv_bfloat16*, "
        "void*, long, float*, int*)",
        "gemm", false);
    row("cutlass tensorop",
        "void "
        "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1>(cutlass_80_tensorop_s1688gemm_"
        "256x64_16x4_tn_align1::Params)",
        "gemm", true);
    row("cutlass 3 sm90",
        "void "
        "cutlass::device_kernel<cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x128x64_1x1x1_0_tnn_"
        "align8_warpspecialized_cooperative_epi_tma>(cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_"
        "128x128x64_1x1x1_0_tnn_align8_warpspecialized_cooperative_epi_tma::Params)",
        "gemm", true);
    row("deepgemm fp8 grouped",
        "void deep_gemm::fp8_gemm_kernel<128u, 128u, 128u, 1u, 128u, 4u, 2u, 128u, "
        "(deep_gemm::GemmType)1>(__nv_bfloat16*, float*, int*, unsigned int, CUtensorMap, CUtensorMap, "
        "CUtensorMap, CUtensorMap)",
        "gemm", true);
    row("deepgemm transpose helper",
        "void deep_gemm::transpose_fp32<128u, 4u>(float const*, float*, unsigned int)", "layout", false);
    row("cublas transpose helper",
        "void transpose_readWrite_alignment_kernel<float2, float2, 1, false, 6, 4, "
        "4>(cublasTransposeParams<float2>, float2 const*, float2*, float2 const*)",
        "layout", false);
    // Layout conversions around convolutions: 17.6% of a compiled ResNet's GPU time were cuDNN's
    // convertTensor, classed "other".
    row("cudnn convertTensor",
        "void cudnn::ops::convertTensor_kernel<float, float, float, (cudnnKernelDataType_t)2>(float, float "
        "const*, "
        "float, float*, unsigned long)",
        "layout", false);
    row("cudnn nchwToNhwc (HTA alexnet)",
        "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>"
        "(cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)",
        "layout", false);
    row("cudnn nhwcToNchw (TensorBoard sample)",
        "void nhwcToNchwKernel<float, float, float, true, false, (cudnnKernelDataType_t)0>(int, int, int, "
        "int, "
        "float const*, float*, float, float)",
        "layout", false);
    row("miopen batched transpose (ddp_resnet18 MI300X)", "batched_transpose_32x32_half", "layout", false);
    row("tma descriptor helper", "fill_tma_descriptor_kernel", "other", false);
    row("trt-llm fp4 bmm",
        "bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_"
        "schedP2x1x2x3_biasM_bN_tma_tmaOpt_clmp_sw",
        "gemm", true);
    row("triton matmul_ogs mxfp4", "_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1_swiglu", "gemm", true);
    row("hipblaslt tensile mfma",
        "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x256x32_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_"
        "CLR1_CADS0",
        "gemm", true);
    row("rocblas tensile", "Cijk_Ailk_Bljk_SB_MT64x64x8_SN_1LDSB0_APM1_ABV0", "gemm", false);
    row("ck gemm xdl",
        "_ZN2ck27kernel_gemm_xdl_cshuffle_v3INS_28GridwiseGemm_xdl_cshuffle_v3IS1_EEEEvNT_8ArgumentE", "gemm",
        true);
    // Convolutions, implicit-GEMM ones included.
    row("cudnn implicit sgemm",
        "void implicit_convolve_sgemm<float, float, 128, 6, 7, 3, 3, 5, 1, false, true, true>(int, int, int, "
        "float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, "
        "int, float const*, float const*, bool, int, int)",
        "conv", false);
    row("cudnn wgrad",
        "void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int, float "
        "const*, int, float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, "
        "int, int)",
        "conv", false);
    row("cudnn volta scudnn", "volta_scudnn_128x128_stridedB_splitK_small_nn_v1", "conv", false);
    row("xmma fprop implicit gemm",
        "sm80_xmma_fprop_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_"
        "warpsize2x2x1_g1_tensor16x8x16_kernel",
        "conv", true);
    row("xmma dgrad",
        "sm86_xmma_dgrad_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nchw_tilesize64x32x64_stage5_"
        "warpsize2x2x1_g1_tensor16x8x16_kernel",
        "conv", true);
    row("winograd",
        "void cudnn::winograd_nonfused::winogradForwardData4x4<float, "
        "float>(cudnn::winograd_nonfused::WinogradDataParams<float, float>)",
        "conv", false);
    row("miopen igemm",
        "igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x256x32_wt32x32x8_ws1x2_wr2x2_ta1x8x2x1_1x4x1x64_tb1x8x4x1_"
        "1x4x1x64",
        "conv", true);
    row("ck grouped conv",
        "_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3INS_"
        "34GridwiseGemmMultiD_xdl_cshuffle_v3",
        "conv", true);
    // Attention.
    row("flash attention 2",
        "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, "
        "false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, "
        "cutlass::bfloat16_t> >, false, true, false, false, false, true, false, "
        "false>(pytorch_flash::Flash_fwd_params)",
        "attention", true);
    row("blackwell fmha fp8",
        "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext", "attention",
        true);
    row("triton attention", "attn_fwd", "attention", false);
    row("vllm paged attention",
        "void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, __hip_bfloat16, "
        "(vllm::Fp8KVCacheDataType)0, 1, 128, 256, false, 4, 1>",
        "attention", true);
    row("ck fmha",
        "_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelINS_"
        "40BlockFmhaBatchPrefillPipelineQRKSVSAsync",
        "attention", true);
    // Softmax and normalisation are not elementwise.
    row("cunn softmax",
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
        "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
        "softmax", false);
    row("cunn softmax reg",
        "void at::native::(anonymous namespace)::cunn_SoftMaxForwardReg<c10::BFloat16, float, c10::BFloat16, "
        "at::native::(anonymous namespace)::SoftMaxForwardEpilogue, long, 8>",
        "softmax", false);
    row("softmax warp",
        "void (anonymous namespace)::softmax_warp_forward<c10::Half, float, float, 7, false, false>(float*, "
        "c10::Half const*, int, int, int, bool const*, int, bool)",
        "softmax", false);
    row("layer norm",
        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, "
        "float const*, float const*, float const*, float*, float*, float*)",
        "normalization", false);
    row("layer norm backward",
        "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<float, float>(long, long, "
        "float const*, float const*, float const*, float const*, float*, float*)",
        "normalization", false);
    row("cudnn batch norm",
        "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>(cudnnTensorStruct, float const*, "
        "cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, "
        "float*, float, float)",
        "normalization", false);
    row("aten batch norm stats",
        "void at::native::batch_norm_collect_statistics_kernel<at::native::Var, c10::BFloat16, "
        "c10::BFloat16, float, int>",
        "normalization", false);
    row("group norm",
        "void (anonymous namespace)::groupnorm_kernel_dispatch_down<__hip_bfloat16, 1024u>(unsigned int, "
        "unsigned int, long, float, bool)",
        "normalization", false);
    row("vllm rms norm",
        "std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
        "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16*, c10::BFloat16 "
        "const*, float, int, int)",
        "normalization", false);
    row("aiter rmsnorm",
        "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi64ELi8ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_"
        "diiiiiiib",
        "normalization", false);
    row("moe routing renormalize is not a norm",
        "void "
        "moe::dev::routing::routingIndicesHistogramKernel<moe::dev::routing::routingRenormalize::"
        "KernelParams<__nv_bfloat16, __nv_bfloat16, 128, 8, true> >",
        "other", false);
    // Communication, by what the kernel is.
    row("nccl", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication",
        false);
    row("nccl sendrecv", "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
        "communication", false);
    row("rccl", "rcclGenericKernel<1, false>", "communication", false);
    row("deepep internode dispatch",
        "void deep_ep::internode::dispatch<true, 8, 8, 24, 32, 12, 2>(int4*, float*, int*, long*, float*, "
        "int*, int*, SourceMeta*, int4 const*, float const*, long const*, float const*, int*, int*, int*, "
        "int*, int*, int const*, bool const*, int, int, int, int, int, int, void*, int, int, int, void**, "
        "int, int, int, bool)",
        "communication", false);
    row("deepep intranode combine",
        "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(__nv_bfloat16*, float*, __nv_bfloat16 "
        "const*, float const*, float const*, float const*, int const*, int const*, int const*, void**, int, "
        "int, int, int, int, int)",
        "communication", false);
    row("deepep notify",
        "void deep_ep::internode::notify_dispatch<true, 8>(int const*, int*, int, int const*, int*, int, int "
        "const*, int*, int, bool const*, int*, int, int*, int*, int*, int*, int, int, int, int, void*, "
        "int**, int*, void*, int, int, void**, int, int, bool)",
        "communication", false);
    row("vllm custom all-reduce",
        "void vllm::cross_device_reduce_1stage<c10::BFloat16, 8>(vllm::RankData*, vllm::RankSignals, "
        "vllm::Signal*, c10::BFloat16*, int, int)",
        "communication", false);
    row("symmetric memory all-reduce",
        "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned "
        "long, unsigned int**, unsigned long, unsigned long, unsigned long)",
        "communication", false);
    // PyTorch's own elementwise kernels and reductions.
    row("vectorized fill",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
        "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
        "elementwise", false);
    row("bf16 add is not a tensor-core kernel",
        "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, "
        "std::array<char*, 3ul> >",
        "elementwise", false);
    row("copy",
        "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::(anonymous "
        "namespace)::direct_copy_kernel_cuda(at::TensorIteratorBase&)",
        "elementwise", false);
    row("foreach adam",
        "void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float, float, float, "
        "float, float, float, adamMode_t, float, int, int>",
        "elementwise", false);
    row("reduce",
        "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, "
        "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
        "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >",
        "reduce", false);
    row("cub reduce",
        "void cub::DeviceReduceKernel<cub::DeviceReducePolicy<float, float, int, cub::Sum>::Policy600, "
        "float*, float*, int, cub::Sum>",
        "reduce", false);
    row("cub sort",
        "void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, "
        "false, long, int, int, int>",
        "other", false);
    row("cat copy",
        "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>",
        "other", false);
    row("fp8 quantize is not a gemm",
        "void fbgemm_gpu::(anonymous namespace)::_compute_FP8_quantize_cuda_kernel<float>(float const*, "
        "float const*, int, int, unsigned char*, bool)",
        "other", false);
    row("moe finalize templated on cutlass types",
        "void "
        "moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<cutlass::bfloat16_t, "
        "cutlass::bfloat16_t, 4, true> >(moe::dev::finalize::KernelParams<cutlass::bfloat16_t, "
        "cutlass::bfloat16_t, 4, true>)",
        "other", false);
    row("kv-cache write is attention without mma",
        "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, unsigned char, "
        "(vllm::Fp8KVCacheDataType)1>(__nv_bfloat16 const*, __nv_bfloat16 const*, unsigned char*, unsigned "
        "char*, long const*, long, long, long, long, long, int, int, int, float const*, float const*)",
        "attention", false);
    row("unknown", "my_kernel", "other", false);
}

void TestKernelClass::classify() {
    QFETCH(QString, name);
    QFETCH(QString, category);
    QFETCH(bool, tensorCores);
    const std::string n = name.toStdString();
    QCOMPARE(QString::fromLatin1(kernelCategoryName(kernelCategory(n)).data()), category);
    QCOMPARE(usesTensorCores(n), tensorCores);
}

void TestKernelClass::everyCategoryHasAName() {
    QSet<QString> names;
    for (std::size_t c = 0; c < kernelCategoryCount; ++c)
        names.insert(QString::fromLatin1(kernelCategoryName(KernelCategory(c)).data()));
    QCOMPARE(names.size(), int(kernelCategoryCount));
    QVERIFY(names.contains("softmax") && names.contains("normalization"));
}

QTEST_GUILESS_MAIN(TestKernelClass)
#include "tst_kernelclass.moc"
