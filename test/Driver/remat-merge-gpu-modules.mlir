// RUN: remat-opt %s --split-input-file --remat-merge-gpu-modules | FileCheck %s

// Two modules with a kernel of the same name: the second is renamed when it
// moves, and its launch follows it.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:      gpu.module @k0 {
// CHECK-NEXT:   gpu.func @f() kernel
// CHECK:        gpu.func @[[F1:f_[0-9]+]]() kernel
// CHECK-NOT:  gpu.module
// CHECK-LABEL: func.func @host
// CHECK:      gpu.launch_func  @k0::@f
// CHECK:      gpu.launch_func  @k0::@[[F1]]
module attributes {gpu.container_module} {
  gpu.module @k0 {
    gpu.func @f() kernel {
      gpu.return
    }
  }
  gpu.module @k1 {
    gpu.func @f() kernel {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k0::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @k1::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// One module: nothing to do.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.module @only
// CHECK: gpu.launch_func  @only::@g
module attributes {gpu.container_module} {
  gpu.module @only {
    gpu.func @g() kernel {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @only::@g blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
