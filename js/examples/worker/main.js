// The page's side of the worker example: one worker, answers matched to
// questions by id, so that several checks may be in flight.
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const waiting = new Map();
let next = 0;

worker.onmessage = (e) => {
  const { id, answer, failure } = e.data;
  const w = waiting.get(id);
  waiting.delete(id);
  if (failure !== undefined) w.reject(new Error(failure));
  else w.resolve(answer);
};

/** checkInWorker resolves to checkRaw(body), computed in the worker. */
export function checkInWorker(body) {
  const id = next++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, body });
  });
}
