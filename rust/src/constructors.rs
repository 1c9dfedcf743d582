//! The constructors every pipeline type has, written once.

/// `from_pretrained` (a folder or a Hugging Face Hub id) and `from_dir` for
/// `$name`, a newtype over `Pipeline` with its own `with_options`; given a
/// kind, also that `with_options`: the folder loaded as that pipeline kind.
macro_rules! pipeline_constructors {
    ($name:ident) => {
        impl $name {
            /// A folder, or a Hugging Face Hub id from the Hub's cache or downloaded into it
            /// (hub::model_folder), loaded with opts.
            pub fn from_pretrained(name_or_path: &str, opts: &PipelineOptions,
                                   hub: &crate::hub::HubOptions<'_>) -> Result<$name> {
                $name::with_options(crate::hub::model_folder(name_or_path, hub)?, opts)
            }

            /// A folder, loaded with the default options.
            pub fn from_dir<P: AsRef<std::path::Path>>(path: P) -> Result<$name> {
                $name::with_options(path, &PipelineOptions::default())
            }
        }
    };
    ($name:ident, $kind:expr) => {
        pipeline_constructors!($name);

        impl $name {
            /// A folder loaded with opts; a folder of another kind is refused, naming both.
            pub fn with_options<P: AsRef<std::path::Path>>(path: P, opts: &PipelineOptions)
                                                           -> Result<$name> {
                Pipeline::load(path.as_ref(), opts, $kind, stringify!($name)).map($name)
            }
        }
    };
}
