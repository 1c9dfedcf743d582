//! Images through an image pipeline: `ImageEncoder` (a ViT, CLIP, SigLIP or
//! sentence-transformers CLIP folder: one vector an image, as
//! tf_pipeline_embed_images) and `ImageClassifier` (ViTForImageClassification,
//! as transformers' image-classification pipeline, over
//! tf_pipeline_classify_images). Images are files' bytes (decoded by the
//! library: JPEG, PNG, WebP, EXIF orientation applied) or RGB pixels.

use crate::error::{check, Error, Result};
use crate::ffi;
use crate::layout;
use crate::pipeline::{string, top_k, Pipeline, PipelineOptions};
use crate::sizes::to_c;

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

/// images through call into [images.len(), width] rows, batch_size a call at most.
fn run(p: &Pipeline, images: &[Image<'_>], batch_size: usize, normalize: bool,
       call: unsafe extern "C" fn(*const ffi::tf_pipeline, *const ffi::tf_image_args)
           -> ffi::tf_status) -> Result<Vec<Vec<f32>>> {
    if batch_size == 0 {
        return Err(Error::invalid("batch_size: expected at least 1, got 0".to_string()));
    }
    let width = p.dim();
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
        // SAFETY: valid handle; a's pointers hold n images and out n x width floats.
        check(unsafe { call(p.raw(), &a) })?;
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
        run(&self.0, images, batch_size, normalize, ffi::tf_pipeline_embed_images)
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
        run(&self.0, images, batch_size, false, ffi::tf_pipeline_classify_images)
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
