//! One Encoder shared by several threads: every result equals the serial one.
use std::sync::Arc;
use std::thread;

use tfenc::{Config, Encoder, Inputs};

#[test]
fn concurrent_forward_equals_serial() {
    let mut cfg = Config::default();
    cfg.d_model = 32;
    cfg.n_heads = 4;
    cfg.d_ff = 64;
    cfg.n_layers = 2;
    let enc = Arc::new(Encoder::new(&cfg).unwrap());
    let inputs: Vec<Vec<f32>> = (0..5)
        .map(|k| (0..2 * 9 * 32).map(|i| ((i * 7 + k * 13) % 23) as f32 / 11.0 - 1.0).collect())
        .collect();
    let expected: Vec<Vec<f32>> = inputs
        .iter()
        .map(|x| enc.forward(&Inputs::input_embeds(x, 2, 9)).unwrap().last_hidden_state)
        .collect();
    let (inputs, expected) = (Arc::new(inputs), Arc::new(expected));
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let (enc, inputs, expected) = (enc.clone(), inputs.clone(), expected.clone());
            thread::spawn(move || {
                for i in 0..20 {
                    let k = (t + i) % inputs.len();
                    let out = enc.forward(&Inputs::input_embeds(&inputs[k], 2, 9)).unwrap();
                    assert_eq!(out.last_hidden_state, expected[k]);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
