//! Model folders as sentence-transformers and transformers use them, over
//! the C library's tf_pipeline: `SentenceEncoder` (a sentence-transformers
//! folder: its pooling, Dense and Normalize modules, prompts),
//! `CrossEncoder` (a *ForSequenceClassification reranker), `Classifier` and
//! `TokenClassifier` (a *ForTokenClassification model's entities).
use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::path::Path;
use std::ptr::{self, NonNull};

use crate::error::{check, Error, Result};
use crate::ffi;
use crate::layout;
use crate::sizes::{from_c, to_c};

/// How a folder is loaded: `max_seq_length` 0 is the folder's; with
/// `truncation_error` a longer input is an error instead of being cut.
#[derive(Clone, Debug, Default)]
pub struct PipelineOptions {
    pub max_seq_length: usize,
    pub truncation_error: bool,
}

/// A loaded folder, immutable: shared between threads freely.
pub(crate) struct Pipeline {
    ptr: NonNull<ffi::tf_pipeline>,
}

// SAFETY: a loaded pipeline is immutable; the C library documents its calls
// as safe from many threads at once.
unsafe impl Send for Pipeline {}
unsafe impl Sync for Pipeline {}

impl Drop for Pipeline {
    fn drop(&mut self) {
        // SAFETY: the handle is valid and owned.
        unsafe { ffi::tf_pipeline_destroy(self.ptr.as_ptr()) };
    }
}

pub(crate) fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::invalid(format!("{}: contains a NUL byte", what)))
}

/// The string at p (static or owned by a live pipeline), or None for NULL.
pub(crate) fn string(p: *const c_char) -> Option<String> {
    // SAFETY: NULL or a NUL-terminated string that outlives this call.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// texts as C strings, each named what[i].
fn c_strings(what: &str, texts: &[&str]) -> Result<Vec<CString>> {
    texts.iter().enumerate().map(|(i, t)| c_string(&format!("{}[{}]", what, i), t)).collect()
}

/// How many of a ranking a call keeps: every one for None, else k >= 1.
pub(crate) fn top_k(k: Option<usize>) -> Result<usize> {
    match k {
        None => Ok(usize::MAX),
        Some(0) => Err(Error::invalid(
            "top_k: expected None (every one) or at least 1, got 0".to_string(),
        )),
        Some(k) => Ok(k),
    }
}

/// The pointers of strings (valid while they live).
fn pointers(strings: &[CString]) -> Vec<*const c_char> {
    strings.iter().map(|c| c.as_ptr()).collect()
}

/// One call's inputs besides the texts (tf_pipeline_args' fields).
struct Call<'a> {
    /// One for each text, or None.
    pairs: Option<&'a [*const c_char]>,
    prompt_name: Option<&'a str>,
    normalize: i32,
    dimensions: usize,
    dimensions_layer_norm: bool,
    batch_size: usize,
}

impl<'a> Call<'a> {
    fn new(pairs: Option<&'a [*const c_char]>, batch_size: usize) -> Call<'a> {
        Call { pairs, prompt_name: None, normalize: -1, dimensions: 0, dimensions_layer_norm: false,
               batch_size }
    }
}

type RunFn =
    unsafe extern "C" fn(*const ffi::tf_pipeline, *const ffi::tf_pipeline_args) -> ffi::tf_status;

impl Pipeline {
    pub(crate) fn load(path: &Path, opts: &PipelineOptions, want: i32, type_name: &str)
                       -> Result<Pipeline> {
        layout::check()?;
        let c_path = c_string("path", &path.to_string_lossy())?;
        let mut o = layout::init(ffi::tf_pipeline_options_init_sized);
        o.max_seq_length = to_c("max_seq_length", opts.max_seq_length)?;
        o.truncation_error = opts.truncation_error as i32;
        if want == ffi::TF_PIPELINE_FILL_MASK {
            o.kind = ffi::TF_PIPELINE_FILL_MASK; // a bare *ForMaskedLM folder with its head
        }
        let mut out = ptr::null_mut();
        // SAFETY: valid path and options; out receives the handle.
        check(unsafe { ffi::tf_pipeline_load(c_path.as_ptr(), &o, &mut out) })?;
        let p = Pipeline { ptr: NonNull::new(out).expect("TF_OK and a handle") };
        // SAFETY: valid handle.
        let kind = unsafe { ffi::tf_pipeline_kind_of(p.ptr.as_ptr()) };
        if kind != want {
            // SAFETY: kind names are static strings.
            let name = |k| string(unsafe { ffi::tf_pipeline_kind_name(k) }).unwrap_or_default();
            return Err(Error::invalid(format!(
                "{}: the folder's kind is {}; {} reads {} folders",
                path.display(),
                name(kind),
                type_name,
                name(want)
            )));
        }
        Ok(p)
    }

    pub(crate) fn raw(&self) -> *const ffi::tf_pipeline {
        self.ptr.as_ptr()
    }

    pub(crate) fn dim(&self) -> usize {
        // SAFETY: valid handle.
        from_c(unsafe { ffi::tf_pipeline_dim(self.raw()) })
    }

    fn max_seq_length(&self) -> usize {
        // SAFETY: valid handle.
        from_c(unsafe { ffi::tf_pipeline_max_seq_length(self.raw()) })
    }

    /// (rows [n, width] row-major, inputs cut) of `run` over texts, C
    /// strings (pointers valid for the call).
    fn run(&self, run: RunFn, texts: &[*const c_char], width: usize, call: &Call<'_>)
           -> Result<(Vec<f32>, usize)> {
        if texts.is_empty() {
            return Ok((Vec::new(), 0));
        }
        if let Some(pairs) = call.pairs {
            if pairs.len() != texts.len() {
                return Err(Error::invalid(format!(
                    "pairs: expected one for each of the {} texts, got {}",
                    texts.len(),
                    pairs.len()
                )));
            }
        }
        let prompt = call.prompt_name.map(|n| c_string("prompt_name", n)).transpose()?;
        let mut out = vec![0f32; texts.len() * width];
        let mut truncated = 0usize;
        let mut a = layout::init(ffi::tf_pipeline_args_init_sized);
        a.n = texts.len();
        a.texts = texts.as_ptr();
        a.pairs = call.pairs.map_or(ptr::null(), |p| p.as_ptr());
        a.prompt_name = prompt.as_ref().map_or(ptr::null(), |p| p.as_ptr());
        a.normalize = call.normalize;
        a.dimensions = to_c("dimensions", call.dimensions)?;
        a.dimensions_layer_norm = call.dimensions_layer_norm as i32;
        a.batch_size = to_c("batch_size", call.batch_size)?;
        a.out = out.as_mut_ptr();
        a.out_len = out.len();
        a.truncated = &mut truncated;
        // SAFETY: every pointer in a is valid for the call (the caller's
        // strings, n texts and n pairs, and the prompt live until it returns;
        // out holds out_len = n x width floats, and the library refuses a call
        // that would write more).
        check(unsafe { run(self.raw(), &a) })?;
        Ok((out, truncated))
    }
}

/// Vectors of one `SentenceEncoder::encode` call.
#[derive(Clone, Debug, PartialEq)]
pub struct Embeddings {
    /// The width of each vector.
    pub dim: usize,
    /// [texts, dim], row-major.
    pub values: Vec<f32>,
    /// Inputs cut to max_seq_length.
    pub truncated: usize,
}

impl Embeddings {
    pub fn row(&self, i: usize) -> &[f32] {
        &self.values[i * self.dim..(i + 1) * self.dim]
    }
}

/// `SentenceTransformer.encode`'s options: the prompt by name (None: the
/// folder's default_prompt_name; Some(""): none), normalisation (None: as
/// the modules say), Matryoshka `dimensions` (0: all), texts per batch (0: 32),
/// and `dimensions_layer_norm`: nomic-embed-text-v1.5's Matryoshka recipe (its
/// model card: a layer norm over all `dim` values, then the first `dimensions`,
/// then unit length) instead of the plain cut (since 0.4.0).
#[derive(Clone, Debug, Default)]
pub struct EncodeOptions<'a> {
    pub prompt_name: Option<&'a str>,
    pub normalize: Option<bool>,
    pub dimensions: usize,
    pub batch_size: usize,
    pub dimensions_layer_norm: bool,
}

/// A sentence-transformers folder (or a plain model: mean pooling).
pub struct SentenceEncoder(Pipeline);

pipeline_constructors!(SentenceEncoder, ffi::TF_PIPELINE_EMBEDDING);

impl SentenceEncoder {
    /// The vectors' width (after any Dense).
    pub fn dim(&self) -> usize {
        self.0.dim()
    }

    pub fn max_seq_length(&self) -> usize {
        self.0.max_seq_length()
    }

    /// similarity_fn_name: "cosine", "dot", "euclidean" or "manhattan".
    pub fn similarity_fn_name(&self) -> String {
        // SAFETY: valid handle.
        string(unsafe { ffi::tf_pipeline_similarity(self.0.raw()) }).unwrap_or_default()
    }

    /// (name, text) of each prompt of config_sentence_transformers.json.
    pub fn prompts(&self) -> Vec<(String, String)> {
        // SAFETY: valid handle; indices below the count; names it gives back.
        unsafe {
            (0..ffi::tf_pipeline_prompt_count(self.0.raw()))
                .filter_map(|i| {
                    let name = ffi::tf_pipeline_prompt_name(self.0.raw(), i);
                    Some((string(name)?, string(ffi::tf_pipeline_prompt(self.0.raw(), name))?))
                })
                .collect()
        }
    }

    pub fn default_prompt_name(&self) -> Option<String> {
        // SAFETY: valid handle.
        string(unsafe { ffi::tf_pipeline_default_prompt_name(self.0.raw()) })
    }

    pub fn encode(&self, texts: &[&str], opts: &EncodeOptions<'_>) -> Result<Embeddings> {
        // a dimensions above dim is refused by the library before it writes
        let dims = 1..=self.dim();
        let dim = if dims.contains(&opts.dimensions) { opts.dimensions } else { self.dim() };
        let mut call = Call::new(None, opts.batch_size);
        call.prompt_name = opts.prompt_name;
        call.normalize = opts.normalize.map_or(-1, |n| n as i32);
        call.dimensions = opts.dimensions;
        call.dimensions_layer_norm = opts.dimensions_layer_norm;
        let texts = c_strings("texts", texts)?;
        let texts = pointers(&texts);
        let (values, truncated) = self.0.run(ffi::tf_pipeline_embed, &texts, dim, &call)?;
        Ok(Embeddings { dim, values, truncated })
    }
}

/// A cross-encoder: one score per (query, passage) pair, as
/// sentence-transformers' `CrossEncoder.predict` (the folder's activation: config.json's
/// `sentence_transformers.activation_fn`, else Sigmoid for one label).
pub struct CrossEncoder(Pipeline);

pipeline_constructors!(CrossEncoder, ffi::TF_PIPELINE_CROSS_ENCODER);

impl CrossEncoder {
    pub fn max_seq_length(&self) -> usize {
        self.0.max_seq_length()
    }

    /// The first label's score of each (queries[i], passages[i]), C strings.
    fn score(&self, queries: &[*const c_char], passages: &[*const c_char], batch_size: usize)
             -> Result<Vec<f32>> {
        let width = self.0.dim();
        let call = Call::new(Some(passages), batch_size);
        let (rows, _) = self.0.run(ffi::tf_pipeline_score, queries, width, &call)?;
        Ok(rows.chunks(width.max(1)).map(|r| r[0]).collect())
    }

    /// The first label's score of each pair (batch_size 0: 32 a batch).
    pub fn predict(&self, pairs: &[(&str, &str)], batch_size: usize) -> Result<Vec<f32>> {
        let named = |i: usize, side: usize, text| c_string(&format!("pairs[{}].{}", i, side), text);
        let queries = pairs.iter().enumerate().map(|(i, p)| named(i, 0, p.0));
        let queries = queries.collect::<Result<Vec<_>>>()?;
        let passages = pairs.iter().enumerate().map(|(i, p)| named(i, 1, p.1));
        let passages = passages.collect::<Result<Vec<_>>>()?;
        self.score(&pointers(&queries), &pointers(&passages), batch_size)
    }

    /// (index into documents, score) of the top_k documents (None: every
    /// one), best first, as sentence-transformers' `CrossEncoder.rank`
    /// (batch_size 0: 32 a batch).
    pub fn rank(&self, query: &str, documents: &[&str], top_k: Option<usize>, batch_size: usize)
                -> Result<Vec<(usize, f32)>> {
        let top_k = self::top_k(top_k)?;
        let query = c_string("query", query)?;
        let documents = c_strings("documents", documents)?;
        let queries = vec![query.as_ptr(); documents.len()];
        let scores = self.score(&queries, &pointers(&documents), batch_size)?;
        let mut ranked: Vec<(usize, f32)> = scores.into_iter().enumerate().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(top_k);
        Ok(ranked)
    }
}

/// A sequence classifier: label probabilities as transformers'
/// text-classification pipeline (softmax, sigmoid or logits by problem_type).
pub struct Classifier(Pipeline);

pipeline_constructors!(Classifier, ffi::TF_PIPELINE_CLASSIFIER);

impl Classifier {
    /// id2label, in id order.
    pub fn labels(&self) -> Vec<String> {
        (0..self.0.dim())
            // SAFETY: valid handle; indices below the label count.
            .filter_map(|i| string(unsafe { ffi::tf_pipeline_label(self.0.raw(), i as i32) }))
            .collect()
    }

    /// [texts][labels] probabilities of texts (and as many pairs, the
    /// second segments) (batch_size 0: 32 a batch).
    pub fn predict_proba(&self, texts: &[&str], pairs: Option<&[&str]>, batch_size: usize)
                         -> Result<Vec<Vec<f32>>> {
        let width = self.0.dim();
        let texts = c_strings("texts", texts)?;
        let pairs = pairs.map(|p| c_strings("pairs", p)).transpose()?;
        let pair_pointers = pairs.as_deref().map(pointers);
        let call = Call::new(pair_pointers.as_deref(), batch_size);
        let (rows, _) = self.0.run(ffi::tf_pipeline_classify, &pointers(&texts), width, &call)?;
        Ok(rows.chunks(width.max(1)).map(|r| r.to_vec()).collect())
    }

    /// Each text's top_k (None: every) (label, score) pairs, best first: Python's
    /// `Classifier.__call__` (batch_size 0: 32 a batch).
    pub fn classify(&self, texts: &[&str], top_k: Option<usize>, batch_size: usize)
                    -> Result<Vec<Vec<(String, f32)>>> {
        let top_k = self::top_k(top_k)?;
        let labels = self.labels();
        Ok(self
            .predict_proba(texts, None, batch_size)?
            .into_iter()
            .map(|row| {
                let mut scored: Vec<(String, f32)> = labels.iter().cloned().zip(row).collect();
                scored.sort_by(|a, b| b.1.total_cmp(&a.1));
                scored.truncate(top_k);
                scored
            })
            .collect())
    }
}

/// How token labels become entities (transformers' aggregation_strategy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregation {
    /// Each token with its best label ("B-PER"), its index.
    None = 0,
    /// Runs of one tag grouped ("PER"), scores averaged.
    Simple = 1,
    /// Each word takes its first token's label, then grouped as Simple.
    First = 2,
    /// Each word the best label of its tokens' mean scores, then grouped.
    Average = 3,
    /// Each word its best-scored token's label, then grouped.
    Max = 4,
}

impl Aggregation {
    /// transformers' name of it (`tf_aggregation_name`): "none" ... "max".
    pub fn name(self) -> String {
        // SAFETY: tf_aggregation_name takes any value; NULL or a static string.
        string(unsafe { ffi::tf_aggregation_name(self as i32) }).unwrap_or_default()
    }
}

/// One entity (or token, for `Aggregation::None`): its label, score, word
/// (the tokenizer's decoding of its tokens, as the pipeline's), its bytes
/// `start..end` of the text, and for `None` the token's index.
#[derive(Clone, Debug, PartialEq)]
pub struct Entity {
    pub label: String,
    pub word: String,
    pub score: f32,
    pub start: usize,
    pub end: usize,
    pub index: Option<usize>,
}

/// A token classifier: entities as transformers' token-classification pipeline.
pub struct TokenClassifier(Pipeline);

pipeline_constructors!(TokenClassifier, ffi::TF_PIPELINE_TOKEN_CLASSIFIER);

impl TokenClassifier {
    /// The entities of text (`&text[e.start..e.end]` is each one's span),
    /// grouped as transformers' aggregation_strategy says.
    pub fn entities(&self, text: &str, aggregation_strategy: Aggregation) -> Result<Vec<Entity>> {
        let c = c_string("text", text)?;
        let mut e = ptr::null_mut();
        // SAFETY: valid handle and text; e receives the result, read then destroyed.
        unsafe {
            check(ffi::tf_pipeline_entities(self.0.raw(), c.as_ptr(), aggregation_strategy as i32,
                                            &mut e))?;
            let out = (0..ffi::tf_entities_count(e))
                .map(|i| Entity {
                    label: string(ffi::tf_entities_label(e, i)).unwrap_or_default(),
                    word: string(ffi::tf_entities_word(e, i)).unwrap_or_default(),
                    score: ffi::tf_entities_score(e, i),
                    start: from_c(ffi::tf_entities_start(e, i)),
                    end: from_c(ffi::tf_entities_end(e, i)),
                    index: usize::try_from(ffi::tf_entities_index(e, i)).ok(),
                })
                .collect();
            ffi::tf_entities_destroy(e);
            Ok(out)
        }
    }
}
