export function fine() {
  return 1;
}

export function broken( {
  return fine(;
}
