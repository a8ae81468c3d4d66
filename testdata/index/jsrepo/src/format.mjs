export default function (n) {
  return n.toFixed(2);
}
