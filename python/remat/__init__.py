"""remat's importers: PyTorch modules (:mod:`remat.torch_import`) and ONNX
graphs (:mod:`remat.onnx_import`) to remat forward IR plus a tensor file with
the weights (:mod:`remat.tensorfile`); :mod:`remat.pipeline` runs an import
through autodiff, a schedule, compilation and one step on the CPU."""
