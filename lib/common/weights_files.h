/* weights_files.h — a model folder's weights by file name, and what is said
 * of a folder (or a Hub repository) that has PyTorch's pickle instead of
 * safetensors: formats/ (loading a folder) and hub/ (choosing a
 * repository's files) say it in these words. */
#ifndef TF_WEIGHTS_FILES_H
#define TF_WEIGHTS_FILES_H

/* The weights libtfenc reads, and PyTorch's pickles of the same tensors
 * (transformers' WEIGHTS_NAME and WEIGHTS_INDEX_NAME), which it does not. */
#define TF_WEIGHTS_FILE "model.safetensors"
#define TF_TORCH_WEIGHTS_FILE "pytorch_model.bin"
#define TF_TORCH_SHARDS_FILE "pytorch_model.bin.index.json"

/* After "<where>: <the pickle> but no model.safetensors: ". */
#define TF_TORCH_WEIGHTS_HINT                                                               \
    "libtfenc reads safetensors only (reading a pickle can run code). Convert it once: in " \
    "its folder, python3 -c \"import torch; from safetensors.torch import save_file; "      \
    "sd = torch.load('pytorch_model.bin', map_location='cpu', weights_only=True); "         \
    "save_file({k: v.contiguous().clone() for k, v in sd.items()}, 'model.safetensors', "   \
    "metadata={'format': 'pt'})\"; or (sharded weights too) transformers' "                 \
    "save_pretrained(folder, safe_serialization=True) of the model loaded from the folder"

#endif
