//! Images through an image pipeline: `ImageEncoder` (a ViT, CLIP, SigLIP or
//! sentence-transformers CLIP folder: one vector an image, as
//! tf_pipeline_embed_images; a whole CLIP or SigLIP folder with its tokenizer
//! also one vector a text, tf_pipeline_embed, and zero-shot label
//! probabilities, tf_pipeline_zero_shot) and `ImageClassifier`
//! (ViTForImageClassification, as transformers' image-classification pipeline,
//! over tf_pipeline_classify_images). Images are files' bytes (decoded by the
//! library: JPEG, PNG, WebP, EXIF orientation applied) or RGB pixels.

use crate::error::{check, Error, Result};
use crate::ffi;
use crate::layout;
use crate::pipeline::{c_string, string, top_k, Pipeline, PipelineOptions};
use crate::sizes::to_c;
use std::os::raw::c_char;

/// One image.
#[derive(Clone, Copy, Debug)]
pub enum Image<'a> {
    /// A JPEG, PNG or WebP file's bytes.
    File(&'a [u8]),
    /// RGB pixels [height, width, 3], rows top to bottom.
    Pixels { rgb: &'a [u8], height: usize, width: usize },
}

impl Image<'_> {
    /// Whether self and other go in one C call: files, or pixels of one size.
    fn goes_with(&self, other: &Image<'_>) -> bool {
        match (self, other) {
            (Image::File(_), Image::File(_)) => true,
            (
                Image::Pixels { height: h, width: w, .. },
                Image::Pixels { height: oh, width: ow, .. },
            ) => h == oh && w == ow,
            _ => false,
        }
    }
}

/// A library call on one run of images (its arguments filled).
type ImageCall<'a> = &'a dyn Fn(&ffi::tf_image_args) -> ffi::tf_status;

/// images through call into [images.len(), width] rows, batch_size a call at most.
fn run(images: &[Image<'_>], batch_size: usize, normalize: bool, width: usize,
       call: ImageCall<'_>) -> Result<Vec<Vec<f32>>> {
    if batch_size == 0 {
        return Err(Error::invalid("batch_size: expected at least 1, got 0".to_string()));
    }
    let mut out = vec![0f32; images.len() * width]; // [n, width]
    let mut first = 0;
    while first < images.len() {
        let mut last = first + 1;
        while last < images.len()
            && last - first < batch_size
            && images[first].goes_with(&images[last])
        {
            last += 1;
        }
        let run = &images[first..last];
        let mut a = layout::init(ffi::tf_image_args_init_sized);
        a.n = run.len();
        a.normalize = normalize as i32;
        a.batch_size = to_c("batch_size", batch_size)?;
        a.first_index = first;
        let data: Vec<*const u8>;
        let sizes: Vec<usize>;
        let pixels: Vec<u8>;
        match run[0] {
            Image::File(_) => {
                let bytes: Vec<&[u8]> = run
                    .iter()
                    .map(|im| match im {
                        Image::File(b) => *b,
                        Image::Pixels { .. } => unreachable!("a run of files"),
                    })
                    .collect();
                data = bytes.iter().map(|b| b.as_ptr()).collect();
                sizes = bytes.iter().map(|b| b.len()).collect();
                a.data = data.as_ptr();
                a.sizes = sizes.as_ptr();
            }
            Image::Pixels { height, width: w, .. } => {
                let bytes = height * w * 3;
                pixels = run
                    .iter()
                    .enumerate()
                    .map(|(i, im)| match im {
                        Image::Pixels { rgb, .. } if rgb.len() == bytes => Ok(*rgb),
                        Image::Pixels { rgb, .. } => Err(Error::invalid(format!(
                            "images[{}]: {} bytes of pixels, {} x {} x 3 = {} expected",
                            first + i,
                            rgb.len(),
                            height,
                            w,
                            bytes
                        ))),
                        Image::File(_) => unreachable!("a run of pixels"),
                    })
                    .collect::<Result<Vec<&[u8]>>>()?
                    .concat(); // [n, H, W, 3]
                a.pixels = pixels.as_ptr();
                a.height = to_c("height", height)?;
                a.width = to_c("width", w)?;
            }
        }
        let rows = &mut out[first * width..last * width];
        a.out = rows.as_mut_ptr();
        a.out_len = rows.len();
        check(call(&a))?;
        first = last;
    }
    Ok(out.chunks(width.max(1)).map(<[f32]>::to_vec).collect())
}

/// An image-embedding folder: one vector an image.
pub struct ImageEncoder(Pipeline);

pipeline_constructors!(ImageEncoder, ffi::TF_PIPELINE_IMAGE_EMBEDDING);

impl ImageEncoder {
    /// The width of its vectors.
    pub fn dim(&self) -> usize {
        self.0.dim()
    }

    /// One vector an image (CLIP's image_embeds, SigLIP's and ViT's pooled
    /// output); normalize: unit length.
    pub fn encode(&self, images: &[Image<'_>], batch_size: usize, normalize: bool)
                  -> Result<Vec<Vec<f32>>> {
        // SAFETY: valid handle; a's pointers hold n images and out n x width floats.
        let call =
            |a: &ffi::tf_image_args| unsafe { ffi::tf_pipeline_embed_images(self.0.raw(), a) };
        run(images, batch_size, normalize, self.dim(), &call)
    }

    /// Whether the folder has a text tower (a whole CLIP or SigLIP folder with its
    /// tokenizer): then `encode_texts` and `zero_shot` run.
    pub fn has_text_tower(&self) -> bool {
        // SAFETY: valid handle.
        !unsafe { ffi::tf_pipeline_tokenizer(self.0.raw()) }.is_null()
    }

    /// One vector a text from the text tower (CLIPModel.get_text_features,
    /// SiglipModel's), as wide as the images'; normalize: unit length.
    pub fn encode_texts(&self, texts: &[&str], batch_size: usize, normalize: bool)
                        -> Result<Vec<Vec<f32>>> {
        let width = self.dim();
        let strings = texts
            .iter()
            .enumerate()
            .map(|(i, t)| c_string(&format!("texts[{}]", i), t))
            .collect::<Result<Vec<_>>>()?;
        let pointers: Vec<*const c_char> = strings.iter().map(|s| s.as_ptr()).collect();
        let mut out = vec![0f32; texts.len() * width]; // [n, width]
        let mut a = layout::init(ffi::tf_pipeline_args_init_sized);
        a.n = texts.len();
        a.texts = pointers.as_ptr();
        a.normalize = if normalize { 1 } else { -1 };
        a.batch_size = to_c("batch_size", batch_size)?;
        a.out = out.as_mut_ptr();
        a.out_len = out.len();
        // SAFETY: valid handle; n texts live until the call returns; out holds n x width.
        check(unsafe { ffi::tf_pipeline_embed(self.0.raw(), &a) })?;
        Ok(out.chunks(width.max(1)).map(<[f32]>::to_vec).collect())
    }

    /// [n][labels] zero-shot probabilities of each label (a text as given) per
    /// image: CLIP's softmax over the labels, SigLIP's sigmoid (transformers'
    /// zero-shot-image-classification pipeline without its template).
    pub fn zero_shot(&self, images: &[Image<'_>], labels: &[&str], batch_size: usize)
                     -> Result<Vec<Vec<f32>>> {
        let strings = labels
            .iter()
            .enumerate()
            .map(|(i, t)| c_string(&format!("labels[{}]", i), t))
            .collect::<Result<Vec<_>>>()?;
        let pointers: Vec<*const c_char> = strings.iter().map(|s| s.as_ptr()).collect();
        // SAFETY: valid handle; a's pointers hold n images, out n x labels floats, and
        // the labels live until the call returns.
        let call = |a: &ffi::tf_image_args| unsafe {
            ffi::tf_pipeline_zero_shot(self.0.raw(), a, pointers.as_ptr(), pointers.len())
        };
        run(images, batch_size, false, labels.len(), &call)
    }
}

/// A ViTForImageClassification folder.
pub struct ImageClassifier(Pipeline);

pipeline_constructors!(ImageClassifier, ffi::TF_PIPELINE_IMAGE_CLASSIFIER);

impl ImageClassifier {
    /// id2label, in id order.
    pub fn labels(&self) -> Vec<String> {
        (0..self.0.dim())
            // SAFETY: valid handle; indices below the label count.
            .filter_map(|i| string(unsafe { ffi::tf_pipeline_label(self.0.raw(), i as i32) }))
            .collect()
    }

    /// [n][labels] probabilities: softmax (sigmoid for one label or
    /// multi-label), as the image-classification pipeline.
    pub fn predict_proba(&self, images: &[Image<'_>], batch_size: usize) -> Result<Vec<Vec<f32>>> {
        // SAFETY: valid handle; a's pointers hold n images and out n x labels floats.
        let call =
            |a: &ffi::tf_image_args| unsafe { ffi::tf_pipeline_classify_images(self.0.raw(), a) };
        run(images, batch_size, false, self.0.dim(), &call)
    }

    /// Each image's top_k (None: every) (label, score), best first.
    pub fn classify(&self, images: &[Image<'_>], top_k: Option<usize>, batch_size: usize)
                    -> Result<Vec<Vec<(String, f32)>>> {
        let top_k = self::top_k(top_k)?;
        let labels = self.labels();
        Ok(self
            .predict_proba(images, batch_size)?
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
