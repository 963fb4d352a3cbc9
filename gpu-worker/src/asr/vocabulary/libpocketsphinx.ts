import koffi from "koffi";

// The slice of Debian's libpocketsphinx3 / libsphinxbase3 (0.8+5prealpha) a biased decoder needs, declared once
// from their headers (pocketsphinx.h, ps_search.h, sphinxbase/ngram_model.h, sphinxbase/logmath.h).

/** Opaque handles. */
type Pointer = unknown;

export interface Libpocketsphinx {
  ps_args(): Pointer;
  cmd_ln_parse_r(inout: Pointer, defn: Pointer, argc: number, argv: string[], strict: number): Pointer;
  ps_init(config: Pointer): Pointer;
  ps_free(ps: Pointer): number;
  ps_set_lm(ps: Pointer, name: string, lm: Pointer): number;
  ps_set_search(ps: Pointer, name: string): number;
  ps_get_logmath(ps: Pointer): Pointer;
  ps_start_utt(ps: Pointer): number;
  ps_process_raw(ps: Pointer, data: Int16Array, samples: number, noSearch: number, fullUtterance: number): number;
  ps_end_utt(ps: Pointer): number;
  ps_seg_iter(ps: Pointer): Pointer;
  ps_seg_next(seg: Pointer): Pointer;
  ps_seg_word(seg: Pointer): string;
  ps_seg_frames(seg: Pointer, startFrame: [number], endFrame: [number]): void;
  ps_seg_prob(seg: Pointer, ascr: null, lscr: null, lback: null): number;
  ngram_model_read(config: Pointer, path: string, type: number, logmath: Pointer): Pointer;
  ngram_model_set_init(config: Pointer, models: Pointer[], names: string[], weights: Float32Array, count: number): Pointer;
  logmath_exp(logmath: Pointer, logValue: number): number;
}

export const LIBPOCKETSPHINX = "libpocketsphinx.so.3";
export const LIBSPHINXBASE = "libsphinxbase.so.3";

/** Loads the libraries (throws when they are not installed). */
export function loadLibpocketsphinx(): Libpocketsphinx {
  const ps = koffi.load(LIBPOCKETSPHINX);
  const base = koffi.load(LIBSPHINXBASE);
  const declare = <K extends keyof Libpocketsphinx>(lib: koffi.IKoffiLib, name: K, signature: string) => [name, lib.func(signature)] as const;
  return Object.fromEntries([
    declare(ps, "ps_args", "void *ps_args()"),
    declare(base, "cmd_ln_parse_r", "void *cmd_ln_parse_r(void *inout, void *defn, int argc, const char **argv, int strict)"),
    declare(ps, "ps_init", "void *ps_init(void *config)"),
    declare(ps, "ps_free", "int ps_free(void *ps)"),
    declare(ps, "ps_set_lm", "int ps_set_lm(void *ps, const char *name, void *lm)"),
    declare(ps, "ps_set_search", "int ps_set_search(void *ps, const char *name)"),
    declare(ps, "ps_get_logmath", "void *ps_get_logmath(void *ps)"),
    declare(ps, "ps_start_utt", "int ps_start_utt(void *ps)"),
    declare(ps, "ps_process_raw", "int ps_process_raw(void *ps, const int16_t *data, size_t n_samples, int no_search, int full_utt)"),
    declare(ps, "ps_end_utt", "int ps_end_utt(void *ps)"),
    declare(ps, "ps_seg_iter", "void *ps_seg_iter(void *ps)"),
    declare(ps, "ps_seg_next", "void *ps_seg_next(void *seg)"),
    declare(ps, "ps_seg_word", "const char *ps_seg_word(void *seg)"),
    declare(ps, "ps_seg_frames", "void ps_seg_frames(void *seg, _Out_ int *sf, _Out_ int *ef)"),
    declare(ps, "ps_seg_prob", "int32_t ps_seg_prob(void *seg, _Out_ int32_t *ascr, _Out_ int32_t *lscr, _Out_ int32_t *lback)"),
    declare(base, "ngram_model_read", "void *ngram_model_read(void *config, const char *file_name, int file_type, void *lmath)"),
    declare(base, "ngram_model_set_init", "void *ngram_model_set_init(void *config, void **models, const char **names, const float *weights, int n_models)"),
    declare(base, "logmath_exp", "double logmath_exp(void *lmath, int logb_p)"),
  ]) as unknown as Libpocketsphinx;
}
