function round(x) {
  return Math.round(x);
}

module.exports = {
  tax(x) {
    return round(x * 0.2);
  },
  fee: (x) => x + 1,
  round,
};
