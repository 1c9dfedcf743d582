//! What a forward call takes and gives (`Encoder::forward`, in encoder.rs):
//! slices with the [batch, seq_len] they are, and owned outputs. Fields and
//! builders are named as Python's `Encoder.__call__` keywords and
//! `EncoderOutput` attributes (Hugging Face's names, tf_forward_args').

/// The inputs of a forward call: slices and the [batch, seq_len] they are.
/// Build with `Inputs::input_ids` or `Inputs::input_embeds`, then chain options.
#[derive(Clone, Debug, Default)]
pub struct Inputs<'a> {
    pub batch: usize,
    pub seq_len: usize,
    /// [batch, seq_len] token ids.
    pub input_ids: Option<&'a [i32]>,
    /// [batch, seq_len], 1 = real token (right padding).
    pub attention_mask: Option<&'a [i32]>,
    /// [batch, seq_len] segment ids.
    pub token_type_ids: Option<&'a [i32]>,
    /// Also return every layer's hidden state.
    pub output_hidden_states: bool,
    /// Also return every layer's attention weights.
    pub output_attentions: bool,
    /// [batch, seq_len, d_model] vectors, for models without a vocabulary.
    pub input_embeds: Option<&'a [f32]>,
    /// Token t attends to tokens <= t only.
    pub causal: bool,
    /// Most threads the call may use, the caller's included: 0 (the
    /// default) = one per online core, 1 = the caller's thread only. Must
    /// fit in an int32.
    pub n_threads: usize,
}

impl<'a> Inputs<'a> {
    /// Token ids [batch, seq_len].
    pub fn input_ids(input_ids: &'a [i32], batch: usize, seq_len: usize) -> Inputs<'a> {
        Inputs { batch, seq_len, input_ids: Some(input_ids), ..Inputs::default() }
    }
    /// Vectors [batch, seq_len, d_model] for models without a vocabulary.
    pub fn input_embeds(input_embeds: &'a [f32], batch: usize, seq_len: usize) -> Inputs<'a> {
        Inputs { batch, seq_len, input_embeds: Some(input_embeds), ..Inputs::default() }
    }
    pub fn attention_mask(mut self, attention_mask: &'a [i32]) -> Self {
        self.attention_mask = Some(attention_mask);
        self
    }
    pub fn token_type_ids(mut self, token_type_ids: &'a [i32]) -> Self {
        self.token_type_ids = Some(token_type_ids);
        self
    }
    pub fn output_hidden_states(mut self, on: bool) -> Self {
        self.output_hidden_states = on;
        self
    }
    pub fn output_attentions(mut self, on: bool) -> Self {
        self.output_attentions = on;
        self
    }
    pub fn causal(mut self, causal: bool) -> Self {
        self.causal = causal;
        self
    }
    /// At most n threads (see the field).
    pub fn n_threads(mut self, n: usize) -> Self {
        self.n_threads = n;
        self
    }
}

/// A forward call's results, owned, row-major. Padded positions are 0.
#[derive(Clone, Debug)]
pub struct EncoderOutput {
    /// [batch, seq_len, d_model]
    pub shape: [usize; 3],
    pub last_hidden_state: Vec<f32>,
    /// [n_layers + 1, batch, seq_len, d_model], embeddings first.
    pub hidden_states: Option<Vec<f32>>,
    /// [n_layers, batch, n_heads, seq_len, seq_len]
    pub attentions: Option<Vec<f32>>,
    /// [batch, d_model], for models with a pooler.
    pub pooler_output: Option<Vec<f32>>,
}
