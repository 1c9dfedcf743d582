// header_cxx.cpp — tfenc.h compiles as C++ (extern "C") and links.
#include "tfenc.h"

int main()
{
    tf_forward_args args;
    tf_forward_args_init(&args);
    tf_encoder *enc = nullptr;
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 8;
    cfg.n_heads = 2;
    cfg.d_ff = 8;
    if (tf_encoder_create(&cfg, &enc) != TF_OK)
        return 1;
    tf_encoder_destroy(enc);
    return args.struct_size == sizeof args ? 0 : 1;
}
