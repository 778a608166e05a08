"""A model spec for remat-import-torch --model FILE:FUNCTION: the softplus
of `encoder.act` has no remat op."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def model():
    torch.manual_seed(0)
    m = nn.Sequential()
    m.add_module("encoder", nn.Sequential())
    m.encoder.add_module("fc", nn.Linear(4, 4))
    m.encoder.add_module("act", nn.Softplus())
    return m, [torch.randn(2, 4)], torch.randn(2, 4), F.mse_loss


def supported():
    """The same model with nn.GELU() (exact, erf) as the activation."""
    m, x, y, loss = model()
    m.encoder.act = nn.GELU()
    return m, x, y, loss
