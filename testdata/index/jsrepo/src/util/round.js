export const round = function (x) {
  return Math.round(x * 100) / 100;
};
