// How a metric key asked for (--gap-key, --val-key, the default candidates) is matched against the keys a log holds.
// One normalisation, then exact comparison: Unicode NFC (a composed "é" equals "e" + combining acute), "/" ≡ "_"
// (TensorBoard and file names write a tag's "/" as "_"), and lower case (Unicode's default case mapping, so
// "Val/Success_Rate" matches "val/success_rate" and "ТОЧНОСТЬ" matches "точность"). Nothing is dropped: every
// other character — letters of any script, digits, "-", ".", spaces — must match, so "成功率" never matches "准确率".

/** The form two keys are compared in: equal normal forms name the same metric. */
export function normaliseMetricKey(key: string): string {
  return key.normalize('NFC').replace(/\//g, '_').toLowerCase();
}
