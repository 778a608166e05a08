// --emit=obj writes a host object defining the entry point; --header writes
// its C declaration and the description of every buffer.
// RUN: remat-compile %s --emit=obj -o %t.o --header=%t.h 2>/dev/null
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=NM
// RUN: FileCheck %s --check-prefix=HEADER < %t.h
// The header is valid C and C++ on its own.
// RUN: cc -fsyntax-only -Wall -Werror -x c -include %t.h /dev/null
// RUN: c++ -fsyntax-only -Wall -Werror -x c++ -include %t.h /dev/null

func.func @train(%input: tensor<4x8xf32>, %labels: tensor<4xi32>,
                 %w: tensor<8x3xf32> {remat.param},
                 %b: tensor<3xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.matmul %input, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = remat.add %0, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %loss = remat.softmax_cross_entropy %1, %labels : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// NM: T train
// NM-NOT: U mgpu

// HEADER: #define REMAT_ENTRY train
// HEADER: #define REMAT_TARGET_CPU 1
// HEADER: #define REMAT_ARENA_BYTES [[ARENA:[1-9][0-9]*]]
// HEADER: #define REMAT_ARENA_LOWER_BOUND_BYTES {{[1-9][0-9]*}}
// HEADER: #define REMAT_NUM_BUFFERS 7
// HEADER: #define REMAT_NUM_INPUTS 4
// HEADER: #define REMAT_NUM_RESULTS 3
// HEADER: #define REMAT_BUF_input 0
// HEADER: #define REMAT_BUF_input_KIND REMAT_KIND_INPUT
// HEADER: #define REMAT_BUF_input_DTYPE REMAT_DTYPE_F32
// HEADER: #define REMAT_BUF_input_SHAPE {4, 8}
// HEADER: #define REMAT_BUF_input_BYTES 128
// The labels index the 3 classes of the logits.
// HEADER: #define REMAT_BUF_labels 1
// HEADER: #define REMAT_BUF_labels_DTYPE REMAT_DTYPE_I32
// HEADER: #define REMAT_BUF_labels_CTYPE int32_t
// HEADER: #define REMAT_BUF_labels_BYTES 16
// HEADER: #define REMAT_BUF_labels_INT_RANGE 3
// HEADER: #define REMAT_BUF_w 2
// HEADER: #define REMAT_BUF_w_KIND REMAT_KIND_PARAM
// HEADER: #define REMAT_BUF_w_BYTES 96
// HEADER: #define REMAT_BUF_b_KIND REMAT_KIND_PARAM
// HEADER: #define REMAT_BUF_loss 4
// HEADER: #define REMAT_BUF_loss_KIND REMAT_KIND_RESULT
// HEADER: #define REMAT_BUF_loss_RANK 0
// HEADER: #define REMAT_BUF_loss_BYTES 4
// HEADER: #define REMAT_BUF_grad_w 5
// HEADER: #define REMAT_BUF_grad_w_SHAPE {8, 3}
// HEADER: #define REMAT_BUF_grad_w_GRAD_OF 2
// HEADER: #define REMAT_BUF_grad_b 6
// HEADER: #define REMAT_BUF_grad_b_GRAD_OF 3
// HEADER: void train(float *input, int32_t *labels, float *w, float *b, float *loss, float *grad_w, float *grad_b);
// HEADER: static const remat_buffer_info remat_buffers[REMAT_NUM_BUFFERS] = {
// HEADER-NEXT: {"input", REMAT_KIND_INPUT, REMAT_DTYPE_F32, 4, 2, {4, 8}, 32, 128, 0, -1, -1},
// HEADER-NEXT: {"labels", REMAT_KIND_INPUT, REMAT_DTYPE_I32, 4, 1, {4}, 4, 16, 3, -1, -1},
// HEADER-NEXT: {"w", REMAT_KIND_PARAM, REMAT_DTYPE_F32, 4, 2, {8, 3}, 24, 96, 0, -1, -1},
// HEADER-NEXT: {"b", REMAT_KIND_PARAM, REMAT_DTYPE_F32, 4, 1, {3}, 3, 12, 0, -1, -1},
// HEADER-NEXT: {"loss", REMAT_KIND_RESULT, REMAT_DTYPE_F32, 4, 0, {0}, 1, 4, 0, -1, -1},
// HEADER-NEXT: {"grad_w", REMAT_KIND_RESULT, REMAT_DTYPE_F32, 4, 2, {8, 3}, 24, 96, 0, 2, -1},
// HEADER-NEXT: {"grad_b", REMAT_KIND_RESULT, REMAT_DTYPE_F32, 4, 1, {3}, 3, 12, 0, 3, -1},
// HEADER-NEXT: };
// HEADER: #define REMAT_CALL(buffers) train((float *)(buffers)[0], (int32_t *)(buffers)[1], (float *)(buffers)[2], (float *)(buffers)[3], (float *)(buffers)[4], (float *)(buffers)[5], (float *)(buffers)[6])
