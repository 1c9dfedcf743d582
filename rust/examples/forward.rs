//! cargo run --example forward [MODEL_DIR_OR_FILE]
//! Loads a checkpoint (default: the repository's Hugging Face bert_tiny
//! fixture) and runs it on a few token ids.
use tfenc::{Encoder, Inputs, LoadOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let default = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/bert_tiny");
    let path = std::env::args().nth(1).unwrap_or_else(|| default.to_string());
    let enc = Encoder::from_file(&path, &LoadOptions::default())?;
    let cfg = enc.config();
    println!(
        "libtfenc {}: {} (d_model {}, {} heads, {} layers, vocab {})",
        tfenc::version(),
        path,
        cfg.d_model,
        cfg.n_heads,
        cfg.n_layers,
        cfg.vocab_size
    );
    let ids = [2, 45, 67, 89, 3]; // [batch 1, seq_len 5]
    let out = enc.forward(&Inputs::input_ids(&ids, 1, ids.len()).output_attentions(true))?;
    println!("last_hidden_state {:?}: token 0 starts {:?}", out.shape, &out.last_hidden_state[..4]);
    if let Some(pooled) = &out.pooler_output {
        println!("pooler_output [1, {}]: starts {:?}", cfg.d_model, &pooled[..4]);
    }
    Ok(())
}
