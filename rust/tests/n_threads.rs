//! n_threads reaches the library: 1 keeps the call on the caller's thread,
//! more starts the library's threads (kept for the life of the process). In
//! a test binary of its own, so that no other test starts them first.
use tfenc::{Config, Encoder, Inputs};

/// The threads of this process.
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

#[test]
fn n_threads_reaches_the_library() {
    let cfg = Config { d_model: 32, n_heads: 4, d_ff: 64, n_layers: 2, ..Config::default() };
    let enc = Encoder::new(&cfg).unwrap();
    let x: Vec<f32> = (0..4 * 16 * 32).map(|i| (i % 23) as f32 / 11.0 - 1.0).collect();
    let inputs = Inputs::input_embeds(&x, 4, 16);
    let before = threads();
    let one = enc.forward(&inputs.clone().n_threads(1)).unwrap().last_hidden_state;
    assert_eq!(threads(), before);
    let two = enc.forward(&inputs.clone().n_threads(2)).unwrap().last_hidden_state;
    assert!(two.iter().zip(&one).all(|(a, b)| (a - b).abs() <= 1e-5));
    if std::thread::available_parallelism().unwrap().get() > 1 {
        assert!(threads() > before);
    }
    let e = enc.forward(&inputs.n_threads(1 << 31)).unwrap_err();
    assert_eq!(e.message, "n_threads: 2147483648 does not fit in int32");
}
