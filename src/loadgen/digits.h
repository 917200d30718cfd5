/* The digits reference benchmark: dataset, split, model (training, FP32 and INT8 inference).
 *
 * Dataset: the UCI optical-recognition handwritten digits (1,797 8x8 images, pixel values
 * 0..16, labels 0..9) as shipped in Debian's python3-sklearn (digits.csv.gz: one row per image,
 * 64 pixels then the label). `make data` extracts it into data/digits/.
 *
 * Split (fixed, by row number r, 0-based, in file order):
 *   r % 10 in 0..5  training     (1,080 rows)  the model is trained on these only
 *   r % 10 == 6     calibration  (  180 rows)  INT8 activation ranges come from these only
 *   r % 10 in 7..9  validation   (  537 rows)  the accuracy set and the QSL: QSL index i is the
 *                                              i-th validation row in file order
 *
 * Model: a one-hidden-layer MLP, 64 inputs (pixel / 16) -> DIGITS_HIDDEN ReLU units -> 10
 * logits, trained with minibatch SGD + momentum on softmax cross-entropy, in double precision
 * with a fixed seed (LoadGen's mt19937) and a platform-independent exp(), then stored as FP32.
 *
 * Inference (both precisions) computes each sample on its own with a fixed operation order, so
 * a sample's result never depends on the batch it is in or on the thread that computes it.
 *   FP32: float arithmetic, no contraction (-ffp-contract=off).
 *   INT8: symmetric per-channel int8 weights for layer 1, per-tensor int8 weights for layer 2,
 *         uint8 inputs (pixels are integers 0..16, exact), uint8 hidden activations whose scale
 *         is calibrated on the calibration split, int32 accumulation, fixed-point requantisation:
 *         integer-only arithmetic at inference.
 *
 * Response format (both SUTs): 4 bytes, the predicted class as a little-endian int32.
 */
#ifndef LG_DIGITS_H
#define LG_DIGITS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define DIGITS_PIXELS 64
#define DIGITS_CLASSES 10
#define DIGITS_HIDDEN 64
#define DIGITS_ROWS 1797                 /* rows of the Debian/sklearn file */
#define DIGITS_RESPONSE_SIZE 4
/* SHA-256 of digits.csv.gz (also in rules/datasets/digits.sha256). */
#define DIGITS_CSV_SHA256 "46abec6b12486ad9e51943373abcf22bbea1b5a51a1619b361570d8893f1464a"
#define DIGITS_CSV_NAME "digits.csv.gz"
#define DIGITS_MODEL_NAME "digits-fp32.bin"
#define DIGITS_TRAIN_SEED 20260101u

typedef struct digits_dataset {
    size_t n;
    uint8_t (*pixels)[DIGITS_PIXELS];   /* n rows, values 0..16 */
    uint8_t *labels;                    /* n labels, 0..9 */
} digits_dataset;

/* Parses the CSV text (64 integer pixels 0..16 and an integer label 0..9 per line, commas, '\n'
 * or "\r\n" line ends, an optional final newline). name is used in messages ("name:line: ..."). */
int digits_parse_csv(const char *text, size_t len, const char *name, digits_dataset *ds, ms_err *e);
/* Decompresses path (gzip, through libarchive; a plain file is read as is) and parses it. */
int digits_load_csv(const char *path, digits_dataset *ds, ms_err *e);
/* The digits dataset folder (the one holding digits.csv.gz and the trained digits-fp32.bin):
 * given is a --data DIR (a data folder holding digits/, or the digits folder itself), else the
 * default places (MLSUBMIT_DATA, the data folder beside the rules): ru_dataset_dir.
 * Returns a malloc'd path, or NULL with e naming every place tried. */
char *digits_find_dir(const char *given, ms_err *e);
/* Loads <dir>/digits.csv.gz after checking its SHA-256 against DIGITS_CSV_SHA256. */
int digits_load_dir(const char *dir, digits_dataset *ds, ms_err *e);
void digits_dataset_free(digits_dataset *ds);

typedef enum digits_split {
    DIGITS_SPLIT_TRAIN = 0,
    DIGITS_SPLIT_CALIB = 1,
    DIGITS_SPLIT_VAL = 2,
} digits_split;

digits_split digits_split_of_row(size_t row);
const char *digits_split_name(digits_split s);
/* Number of rows of split s among rows 0..n-1; if rows is non-NULL it receives them in order. */
size_t digits_split_rows(size_t n, digits_split s, size_t *rows);

/* FP32 model. Layouts are input-major so that inference loops run across outputs. */
typedef struct digits_fp32 {
    float w1[DIGITS_PIXELS][DIGITS_HIDDEN];
    float b1[DIGITS_HIDDEN];
    float w2[DIGITS_HIDDEN][DIGITS_CLASSES];
    float b2[DIGITS_CLASSES];
} digits_fp32;

typedef struct digits_train_params {
    uint32_t seed;
    unsigned epochs;
    unsigned batch;
    double learning_rate;
    double momentum;
    double weight_decay;
} digits_train_params;

void digits_train_params_default(digits_train_params *p);
/* Trains on the training split of ds. Deterministic: same inputs, same bytes. */
int digits_train(const digits_dataset *ds, const digits_train_params *p, digits_fp32 *m, ms_err *e);

/* Model file: "MLSDIGW1", version, dimensions, the float32 arrays (little-endian), SHA-256 of
 * everything before it. Written atomically. */
int digits_fp32_save(const char *path, const digits_fp32 *m, ms_err *e);
int digits_fp32_load(const char *path, digits_fp32 *m, ms_err *e);
/* The file's bytes (for determinism checks); *out is malloc'd. */
int digits_fp32_serialize(const digits_fp32 *m, unsigned char **out, size_t *len, ms_err *e);

/* INT8 model (integer-only inference). */
typedef struct digits_int8 {
    int8_t w1[DIGITS_HIDDEN][DIGITS_PIXELS];      /* quantised weights (the model) */
    int8_t w2[DIGITS_CLASSES][DIGITS_HIDDEN];
    int16_t w1x[DIGITS_HIDDEN][DIGITS_PIXELS];    /* the same values widened for multiply-add */
    int16_t w2x[DIGITS_CLASSES][DIGITS_HIDDEN];
    int32_t b1[DIGITS_HIDDEN];                    /* in units of w1_scale[j] / 16 */
    int32_t b2[DIGITS_CLASSES];                   /* in units of w2_scale * h_scale */
    int32_t mult[DIGITS_HIDDEN];                  /* requantisation: h = acc * mult >> shift */
    int32_t shift[DIGITS_HIDDEN];
    float w1_scale[DIGITS_HIDDEN];
    float w2_scale;
    float h_scale;                                /* calibrated hidden activation scale */
} digits_int8;

/* Post-training quantisation: activation range from the calibration split of ds only. */
int digits_quantize(const digits_fp32 *m, const digits_dataset *ds, digits_int8 *q, ms_err *e);

/* Predicted class of one image (ties go to the lowest class). */
int digits_predict_fp32(const digits_fp32 *m, const uint8_t px[DIGITS_PIXELS]);
int digits_predict_int8(const digits_int8 *q, const uint8_t px[DIGITS_PIXELS]);
/* FP32 logits (for tests). */
void digits_logits_fp32(const digits_fp32 *m, const uint8_t px[DIGITS_PIXELS],
                        float out[DIGITS_CLASSES]);

/* Top-1 accuracy on split s: correct count in *good, rows in *total; returns good/total. */
double digits_accuracy_fp32(const digits_fp32 *m, const digits_dataset *ds, digits_split s,
                            size_t *good, size_t *total);
double digits_accuracy_int8(const digits_int8 *q, const digits_dataset *ds, digits_split s,
                            size_t *good, size_t *total);

/* exp(x) computed the same way on every IEEE-754 platform (range reduction + polynomial);
 * relative error below 1e-15 for x in [-700, 700]. Used by training. */
double digits_exp(double x);

/* ---- accuracy of a LoadGen accuracy log ---- */

typedef struct digits_score {
    size_t entries;       /* entries in the log */
    size_t duplicates;    /* entries whose qsl_idx was already scored (ignored, as upstream) */
    size_t good;          /* distinct samples predicted correctly */
    size_t total;         /* distinct samples scored */
    size_t dataset;       /* samples in the accuracy set (the validation split) */
} digits_score;

/* Scores a mlperf_log_accuracy.json against the validation labels of ds (streaming). Fails
 * with MS_EINPUT naming the file and line for a malformed log, a qsl_idx outside the QSL or a
 * response that is not 4 bytes. */
int digits_score_log(const char *log_path, const digits_dataset *ds, digits_score *out, ms_err *e);

/* The digits entry of the rules data (rules/digits.json). */
typedef struct digits_rules {
    size_t ref_good, ref_total;  /* FP32 reference accuracy = ref_good / ref_total */
    double target_fraction;      /* 0.99 */
    char sha256[65];             /* dataset checksum */
} digits_rules;

int digits_rules_load(const char *path, digits_rules *r, ms_err *e);
/* 1 if good/total meets target_fraction of the reference (exact rational comparison). */
int digits_rules_meets(const digits_rules *r, size_t good, size_t total);
double digits_rules_target(const digits_rules *r);   /* as a fraction */

/* Encodes a predicted class as the 4-byte response; decodes one (returns -1 if size != 4). */
void digits_encode_response(int cls, unsigned char out[DIGITS_RESPONSE_SIZE]);
int64_t digits_decode_response(const unsigned char *data, size_t size);

#endif
