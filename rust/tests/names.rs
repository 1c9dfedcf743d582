//! The enums' names and values are the library's (tf_*_name, tf_*_from_name,
//! tf_status_name).
use tfenc::{Activation, Pooling, Position, Status};

#[test]
fn enum_names_are_the_library_names() {
    let activations =
        [(Activation::Gelu, "gelu"), (Activation::GeluTanh, "gelu_tanh"), (Activation::Relu, "relu"),
         (Activation::Silu, "silu")];
    for (a, name) in activations {
        assert_eq!((a.name(), Activation::from_name(name)), (name, Some(a)));
    }
    let positions =
        [(Position::None, "none"), (Position::Sinusoidal, "sinusoidal"), (Position::Learned, "learned"),
         (Position::Rotary, "rotary"), (Position::Alibi, "alibi")];
    for (p, name) in positions {
        assert_eq!((p.name(), Position::from_name(name)), (name, Some(p)));
    }
    for (p, name) in [(Pooling::Cls, "cls"), (Pooling::Mean, "mean")] {
        assert_eq!((p.name(), Pooling::from_name(name)), (name, Some(p)));
    }
    assert_eq!(Activation::from_name("gelu_new"), None); // a Hugging Face name, not the library's
    assert_eq!(Position::from_name("Learned"), None);
    assert_eq!(Pooling::from_name("max"), None);
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
