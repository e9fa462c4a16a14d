"""Specs that together use every generated catalog type (all of ``keras.layers``) on the
8x8x1 ``digits8`` images, grouped by input rank: images (2-D, 3-D, ConvLSTM, every
augmentation layer), sequences (1-D, recurrent, attention, spectrograms) and vectors
(noise, merges, preprocessing with fixed vocabularies). Used by test_live_all_layers.py.
"""

from __future__ import annotations


def L(name: str, type_: str, inputs: list[str], **config) -> dict:
    return {"name": name, "type": type_, "config": config, "inputs": inputs}


def _spec(name: str, layers: list[dict], outputs: list[str], shape=(8, 8, 1)) -> dict:
    return {"format": 1, "name": name, "kind": "functional",
            "inputs": [{"name": "image", "shape": list(shape), "dtype": "float32"}],
            "layers": layers, "outputs": outputs}


def image_spec() -> dict:
    aug1 = ["RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation", "RandomContrast",
            "RandomBrightness", "RandomShear", "RandomPerspective", "RandomElasticTransform",
            "RandomGaussianBlur", "RandomErasing", "RandomSharpness", "RandomInvert",
            "Solarization", "AutoContrast", "RandomPosterization",
            "ContrastLimitedAdaptiveHistogramEqualization", "MixUp", "CutMix"]
    aug3 = ["RandomColorDegeneration", "RandomSaturation", "RandomHue", "RandomGrayscale",
            "RandomColorJitter", "AugMix", "RandAugment"]
    layers = [L("scaled", "Rescaling", ["image"], scale=255.0)]
    prev = "scaled"
    for t in aug1:
        layers.append(L(t.lower(), t, [prev]))
        prev = t.lower()
    layers += [L("crop", "RandomCrop", [prev], height=8, width=8),
               L("center", "CenterCrop", ["crop"], height=8, width=8),
               L("resize", "Resizing", ["center"], height=8, width=8),
               L("rgb", "Concatenate", ["resize", "resize", "resize"])]
    prev = "rgb"
    for t in aug3:
        layers.append(L(t.lower(), t, [prev]))
        prev = t.lower()
    layers += [
        L("gray", "Conv2D", [prev], filters=1, kernel_size=1),
        L("norm01", "Rescaling", ["gray"], scale=1 / 255),
        L("pad", "ZeroPadding2D", ["norm01"]), L("crop2d", "Cropping2D", ["pad"]),
        L("tconv", "Conv2DTranspose", ["crop2d"], filters=2, kernel_size=3, padding="same"),
        L("dw", "DepthwiseConv2D", ["tconv"], kernel_size=3, padding="same"),
        L("sep", "SeparableConv2D", ["dw"], filters=4, kernel_size=3, padding="same"),
        L("gn", "GroupNormalization", ["sep"], groups=2),
        L("rms", "RMSNormalization", ["gn"]), L("unit", "UnitNormalization", ["rms"]),
        L("prelu", "PReLU", ["unit"]), L("elu", "ELU", ["prelu"]),
        L("leaky", "LeakyReLU", ["elu"]), L("relu", "ReLU", ["leaky"]),
        L("sdrop2", "SpatialDropout2D", ["relu"]),
        L("up2", "UpSampling2D", ["sdrop2"]),
        L("aap2", "AdaptiveAveragePooling2D", ["up2"], output_size=4),
        L("amp2", "AdaptiveMaxPooling2D", ["aap2"], output_size=2),
        L("gmp2", "GlobalMaxPooling2D", ["amp2"]),
        # 3-D and ConvLSTM
        L("vol", "Reshape", ["image"], target_shape=[2, 4, 8, 1]),
        L("c3", "Conv3D", ["vol"], filters=2, kernel_size=3, padding="same"),
        L("t3", "Conv3DTranspose", ["c3"], filters=2, kernel_size=3, padding="same"),
        L("p3", "ZeroPadding3D", ["t3"]), L("cr3", "Cropping3D", ["p3"]),
        L("u3", "UpSampling3D", ["cr3"]), L("sd3", "SpatialDropout3D", ["u3"]),
        L("mp3", "MaxPooling3D", ["sd3"], pool_size=[1, 1, 1]),
        L("ap3", "AveragePooling3D", ["mp3"], pool_size=[1, 1, 1]),
        L("aa3", "AdaptiveAveragePooling3D", ["ap3"], output_size=2),
        L("am3", "AdaptiveMaxPooling3D", ["aa3"], output_size=2),
        L("ga3", "GlobalAveragePooling3D", ["am3"]),
        L("gm3", "GlobalMaxPooling3D", ["c3"]),
        L("clstm2", "ConvLSTM2D", ["vol"], filters=2, kernel_size=3, padding="same"),
        L("clstm2_flat", "Flatten", ["clstm2"]),
        L("frames1", "Reshape", ["image"], target_shape=[2, 32, 1]),
        L("clstm1", "ConvLSTM1D", ["frames1"], filters=2, kernel_size=3),
        L("clstm1_flat", "Flatten", ["clstm1"]),
        L("frames3", "Reshape", ["image"], target_shape=[2, 2, 2, 8, 1]),
        L("clstm3", "ConvLSTM3D", ["frames3"], filters=2, kernel_size=1),
        L("clstm3_flat", "Flatten", ["clstm3"]),
        L("joined", "Concatenate", ["gmp2", "ga3", "gm3", "clstm2_flat", "clstm1_flat",
                                    "clstm3_flat"]),
        L("logits", "Dense", ["joined"], units=10), L("softmax", "Softmax", ["logits"]),
    ]
    return _spec("image_layers", layers, ["softmax"])


def sequence_spec() -> dict:
    layers = [
        L("seq", "Reshape", ["image"], target_shape=[8, 8]),
        L("mask", "Masking", ["seq"], mask_value=-1.0),
        L("pad1", "ZeroPadding1D", ["mask"]), L("crop1", "Cropping1D", ["pad1"]),
        L("t1", "Conv1DTranspose", ["crop1"], filters=4, kernel_size=3, padding="same"),
        L("dw1", "DepthwiseConv1D", ["t1"], kernel_size=3, padding="same"),
        L("sep1", "SeparableConv1D", ["dw1"], filters=8, kernel_size=3, padding="same"),
        L("sd1", "SpatialDropout1D", ["sep1"]), L("up1", "UpSampling1D", ["sd1"]),
        L("ap1", "AveragePooling1D", ["up1"], pool_size=2),
        L("aa1", "AdaptiveAveragePooling1D", ["ap1"], output_size=8),
        L("am1", "AdaptiveMaxPooling1D", ["aa1"], output_size=8),
        L("perm", "Permute", ["am1"], dims=[2, 1]),
        L("rnn", "SimpleRNN", ["perm"], units=8, return_sequences=True),
        L("cellrnn", "RNN", ["rnn"], return_sequences=True),
        L("td", "TimeDistributed", ["cellrnn"]),
        L("mha", "MultiHeadAttention", ["td", "td"]),
        L("gqa", "GroupedQueryAttention", ["mha", "mha"]),
        L("att", "Attention", ["gqa", "mha"]),
        L("addatt", "AdditiveAttention", ["att", "gqa"]),
        L("einsum", "EinsumDense", ["addatt"], equation="abc,cd->abd", output_shape=[8, 4]),
        L("gmp1", "GlobalMaxPooling1D", ["einsum"]),
        L("rep", "RepeatVector", ["gmp1"], n=2), L("bi", "Bidirectional", ["rep"]),
        L("wave", "Reshape", ["image"], target_shape=[64, 1]),
        L("stft", "STFTSpectrogram", ["wave"], frame_length=16, frame_step=8, fft_length=16),
        L("stft_flat", "Flatten", ["stft"]),
        L("flat", "Flatten", ["image"]),
        L("mel", "MelSpectrogram", ["flat"], fft_length=16, sequence_stride=8,
          sequence_length=16, num_mel_bins=4, sampling_rate=1000, power_to_db=False),
        L("mel_flat", "Flatten", ["mel"]),
        L("joined", "Concatenate", ["bi", "stft_flat", "mel_flat"]),
        L("logits", "Dense", ["joined"], units=10), L("softmax", "Softmax", ["logits"]),
    ]
    return _spec("sequence_layers", layers, ["softmax"])


def vector_spec() -> dict:
    layers = [
        L("flat", "Flatten", ["image"]),
        L("normal", "Normalization", ["flat"], mean=0.5, variance=0.25),
        L("alpha", "AlphaDropout", ["normal"], rate=0.1),
        L("gdrop", "GaussianDropout", ["alpha"], rate=0.1),
        L("noise", "GaussianNoise", ["gdrop"], stddev=0.1),
        L("actreg", "ActivityRegularization", ["noise"], l2=0.001),
        L("ident", "Identity", ["actreg"]),
        L("raw", "KerasRaw", ["ident"]),
        L("pipe", "Pipeline", ["raw"]),
        L("spectral", "SpectralNormalization", ["pipe"]),
        L("a", "Dense", ["flat"], units=8), L("b", "Dense", ["flat"], units=8),
        L("max", "Maximum", ["a", "b"]), L("min", "Minimum", ["a", "b"]),
        L("sub", "Subtract", ["max", "min"]), L("dot", "Dot", ["max", "min"], axes=-1),
        L("bins", "Discretization", ["flat"], bin_boundaries=[0.25, 0.5, 0.75]),
        L("lookup", "IntegerLookup", ["bins"], vocabulary=[0, 1, 2, 3]),
        L("hash", "Hashing", ["bins"], num_bins=8),
        L("onehot", "CategoryEncoding", ["lookup"], num_tokens=5),
        L("remb", "ReversibleEmbedding", ["hash"], input_dim=8, output_dim=2),
        L("remb_flat", "Flatten", ["remb"]),
        L("joined", "Concatenate", ["spectral", "sub", "dot", "onehot", "remb_flat"]),
        L("logits", "Dense", ["joined"], units=10), L("softmax", "Softmax", ["logits"]),
    ]
    return _spec("vector_layers", layers, ["softmax"])
