"""PyTorch where a caller asks for it (convert_to_tensor, torch tensors
given), never imported otherwise: libtfenc needs numpy only."""
import sys

import numpy as np

from ._args import flag


def is_tensor(value):
    """Whether value is a torch.Tensor (False whenever torch was never imported)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def to_numpy(value):
    """A torch tensor's values as a numpy array (detached, on the CPU); anything else as is."""
    return value.detach().cpu().numpy() if is_tensor(value) else value


def import_torch(what):
    """The torch module, or an ImportError saying that `what` needs it."""
    try:
        import torch
    except ImportError as e:
        raise ImportError(f"{what} gives torch tensors, and torch cannot be imported ({e}); "
                          f"convert_to_numpy=True (the default) gives numpy arrays") from None
    return torch


def convert(rows, single, convert_to_numpy, convert_to_tensor):
    """rows [n, ...] (numpy) as sentence-transformers' encode and predict
    return them: convert_to_tensor one torch tensor, else convert_to_numpy
    the array, else a list of one torch tensor per row; single: its first
    row alone."""
    as_tensor = flag(convert_to_tensor, "convert_to_tensor")
    as_numpy = flag(convert_to_numpy, "convert_to_numpy")
    if as_tensor:
        out = import_torch("convert_to_tensor=True").from_numpy(rows)
    elif as_numpy:
        out = rows
    else:
        torch = import_torch("convert_to_numpy=False")
        out = [torch.from_numpy(np.ascontiguousarray(row)) for row in rows]
    return out[0] if single else out
