//! The enums' names and values are the library's (tf_*_name, tf_*_from_name,
//! tf_status_name).
use std::ffi::CStr;

use tfenc::{ffi, Activation, Pooling, Position, Status};

#[test]
fn enum_names_are_the_library_names() {
    let activations =
        [(Activation::Gelu, "gelu"), (Activation::GeluTanh, "gelu_tanh"), (Activation::Relu, "relu"),
         (Activation::Silu, "silu"), (Activation::QuickGelu, "quick_gelu")];
    for (a, name) in activations {
        assert_eq!((a.name(), Activation::from_name(name)), (name, Some(a)));
    }
    let positions =
        [(Position::None, "none"), (Position::Sinusoidal, "sinusoidal"), (Position::Learned, "learned"),
         (Position::Rotary, "rotary"), (Position::Alibi, "alibi")];
    for (p, name) in positions {
        assert_eq!((p.name(), Position::from_name(name)), (name, Some(p)));
    }
    let poolings =
        [(Pooling::Cls, "cls"), (Pooling::Mean, "mean"), (Pooling::Max, "max"),
         (Pooling::MeanSqrtLen, "mean_sqrt_len_tokens"), (Pooling::WeightedMean, "weightedmean"),
         (Pooling::LastToken, "lasttoken")];
    for (p, name) in poolings {
        assert_eq!((p.name(), Pooling::from_name(name)), (name, Some(p)));
    }
    assert_eq!(Activation::from_name("gelu_new"), None); // a Hugging Face name, not the library's
    assert_eq!(Position::from_name("Learned"), None);
    assert_eq!(Pooling::from_name("Max"), None);
    assert_eq!(Pooling::from_name("cls\0"), None);
}

#[test]
fn status_names_and_values_are_the_library_ones() {
    assert_eq!(
        (Status::InvalidArgument.name(), Status::InvalidArgument.code()),
        ("TF_ERR_INVALID_ARGUMENT", 1)
    );
    assert_eq!((Status::NotFound.name(), Status::NotFound.code()), ("TF_ERR_NOT_FOUND", 7));
    assert_eq!((Status::Unknown(99).name(), Status::Unknown(99).code()), ("TF_ERR_UNKNOWN", 99));
}

/// (value, name) of every failure status the library names, from 1 up.
fn c_statuses() -> Vec<(ffi::tf_status, String)> {
    // SAFETY: tf_status_name takes any value and returns a static string.
    let name = |code| unsafe { CStr::from_ptr(ffi::tf_status_name(code)) }.to_str().unwrap();
    let name = |code| name(code).to_string();
    (1..).map(|code| (code, name(code))).take_while(|(_, n)| n != "TF_ERR_UNKNOWN").collect()
}

#[test]
fn every_c_status_is_the_status_of_its_name() {
    // TF_ERR_<X> is Status::<X>, X in CamelCase, as Python's <X>Error; TF_ERR_IO is
    // Status::File (error.rs says why)
    let statuses = c_statuses();
    assert!(statuses.len() >= 7 && statuses.contains(&(4, "TF_ERR_IO".to_string())));
    for (code, name) in statuses {
        let stem = &name["TF_ERR_".len()..];
        let expected: String = if stem == "IO" {
            "File".to_string()
        } else {
            stem.split('_').map(|w| w[..1].to_string() + &w[1..].to_lowercase()).collect()
        };
        let status = Status::from_code(code);
        let got = (format!("{:?}", status), status.name(), status.code());
        assert_eq!(got, (expected, name.as_str(), code));
    }
}
