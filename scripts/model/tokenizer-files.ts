/**
 * The transformers.js tokenizer files for a whole-word vocabulary: BERT
 * normalisation and pre-tokenisation, WordPiece that only ever matches whole
 * words (no ## pieces in the vocabulary, so an unknown word becomes [UNK], whose
 * row is zero), and no [CLS]/[SEP] post-processing so only real words are pooled.
 */
export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

export function tokenizerJson(words: readonly string[]): object {
  const vocab: Record<string, number> = {};
  [...SPECIAL_TOKENS, ...words].forEach((token, id) => {
    vocab[token] = id;
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

export const TOKENIZER_CONFIG = {
  tokenizer_class: 'BertTokenizer',
  do_lower_case: true,
  model_max_length: 512,
  pad_token: '[PAD]',
  unk_token: '[UNK]',
  cls_token: '[CLS]',
  sep_token: '[SEP]',
  mask_token: '[MASK]',
  clean_up_tokenization_spaces: true,
  strip_accents: null,
  tokenize_chinese_chars: true,
};

export const SPECIAL_TOKENS_MAP = {
  pad_token: '[PAD]',
  unk_token: '[UNK]',
  cls_token: '[CLS]',
  sep_token: '[SEP]',
  mask_token: '[MASK]',
};

export function bertConfig(name: string, dims: number, vocabSize: number, description: string): object {
  return {
    _name_or_path: name,
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_size: dims,
    vocab_size: vocabSize,
    num_hidden_layers: 0,
    num_attention_heads: 1,
    intermediate_size: dims,
    max_position_embeddings: 512,
    type_vocab_size: 2,
    pad_token_id: 0,
    description,
  };
}
