// REQUIRES: ptxas
// Block-parallel reductions in the CUDA path (--remat-gpu-block-reductions,
// docs/Conventions.md): a step with a bias (its gradient sums 64 rows), a
// layer norm (statistics over 96 features per row) and an MSE loss (a full
// reduction of 64 x 96 elements). The reductions become kernels of one block
// per output element with a shared-memory buffer and a barrier per tree step;
// the PTX goes through ptxas. Compiled and checked only: never run here.
// RUN: rm -rf %t && mkdir -p %t
// RUN: remat-compile %s --target=cuda --emit=ptx --gpu-block-size=128 2>/dev/null > %t/k.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// RUN: /usr/local/cuda/bin/ptxas -arch=sm_90 %t/k.ptx -o %t/k.cubin
// RUN: od -A n -c -N 4 %t/k.cubin | FileCheck %s --check-prefix=ELF
// RUN: remat-compile %s --target=cuda --emit=ptx 2>/dev/null | FileCheck %s --check-prefix=B256
// The GPT example's cross-entropy loss, a full reduction over 4 x 16 tokens
// whose body gathers the logit at each label (memref.load): one block of 64
// threads; its PTX through ptxas.
// RUN: remat-compile %remat_src/examples/gpt_l2.mlir --target=cuda --emit=mlir-buffers 2>/dev/null | remat-opt --remat-gpu-block-reductions | FileCheck %s --check-prefix=CE
// RUN: remat-compile %remat_src/examples/gpt_l2.mlir --target=cuda --emit=ptx 2>/dev/null > %t/gpt.ptx
// RUN: /usr/local/cuda/bin/ptxas -arch=sm_90 %t/gpt.ptx -o %t/gpt.cubin

func.func @step(%x: tensor<64x96xf32>, %t: tensor<64x96xf32>,
                %b: tensor<96xf32> {remat.param},
                %g: tensor<96xf32> {remat.param},
                %beta: tensor<96xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.add %x, %b : (tensor<64x96xf32>, tensor<96xf32>) -> tensor<64x96xf32>
  %1 = remat.layer_norm %0, %g, %beta {epsilon = 1.0e-5 : f64} : (tensor<64x96xf32>, tensor<96xf32>, tensor<96xf32>) -> tensor<64x96xf32>
  %2 = remat.mse %1, %t : (tensor<64x96xf32>, tensor<64x96xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}

// With --gpu-block-size=128, in kernel order: the layer norm's row
// statistics (sum and sum of squares in f64 over 96 features: 128 threads,
// two 1 KiB buffers), the loss (64 x 96 elements into one output: 128
// threads, f32), the statistics again (recomputed in the backward pass), the
// backward row sums (two f32 outputs), the gamma gradient (f64 sums over 64
// rows: 64 threads) and the bias gradient (64 rows: 64 threads). Each tree
// step ends in a barrier.
// PTX: .target sm_90
// PTX: .maxntid 128, 1, 1
// PTX: .shared .align 8 .b8 __wg_[[K1:.*]]_0[1024];
// PTX: .shared .align 8 .b8 __wg_[[K1]]_1[1024];
// PTX: st.shared.b64
// PTX: bar.sync 0;
// PTX: ld.shared.b64
// PTX: .maxntid 128, 1, 1
// PTX: .shared .align 4 .b8 {{.*}}[512];
// PTX: bar.sync 0;
// PTX: .maxntid 128, 1, 1
// PTX: .shared .align 8 .b8 {{.*}}[1024];
// PTX: .maxntid 128, 1, 1
// PTX: .shared .align 4 .b8 __wg_[[K4:.*]]_0[512];
// PTX: .shared .align 4 .b8 __wg_[[K4]]_1[512];
// PTX: .maxntid 64, 1, 1
// PTX: .shared .align 8 .b8 {{.*}}[512];
// PTX: .maxntid 64, 1, 1
// PTX: .shared .align 4 .b8 {{.*}}[256];
// PTX-NOT: .shared .align

// ELF: 177 E L F

// The default block size (256) lets the loss use 256 threads.
// B256: .maxntid 256, 1, 1
// B256: .shared .align 4 .b8 {{.*}}[1024];

// CE: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}) threads(%[[TX:[a-z0-9]+]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{(_[0-9]+)?}}, {{.*}} workgroup(%{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>)
// CE: scf.for %[[R:.*]] = %[[TX]] to %c64{{(_[0-9]+)?}} step %c64
// CE: %[[LABEL:.*]] = memref.load %arg2[%{{.*}}, %{{.*}}] : memref<4x16xi64>
// CE-NEXT: %[[C:.*]] = arith.index_cast %[[LABEL]] : i64 to index
// CE-NEXT: memref.load %{{.*}}[%{{.*}}, %{{.*}}, %[[C]]] : memref<4x16x128xf32>
// CE-NEXT: math.log
// CE: gpu.barrier
