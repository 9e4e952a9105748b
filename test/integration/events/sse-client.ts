/** A minimal Server-Sent Events client over fetch, for tests: read until a condition holds. */
export interface SseMessage {
  id: string;
  data: string;
}

export interface SseClient {
  status: number;
  contentType: string;
  /** Everything received so far. */
  text: string;
  messages(): SseMessage[];
  /** Reads until `predicate` holds (or the stream ends); resolves with whether it held. */
  until(predicate: (client: SseClient) => boolean): Promise<boolean>;
  /** Whether the server ended the stream. */
  ended: boolean;
  close(): void;
}

/** Opens `url` as an event stream with the given headers. */
export async function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  const client: SseClient = {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: '',
    ended: false,
    messages: () =>
      client.text
        .split('\n\n')
        .filter((block) => block.startsWith('id: '))
        .map((block) => {
          const lines = block.split('\n');
          return { id: lines[0]?.slice(4) ?? '', data: lines.find((line) => line.startsWith('data: '))?.slice(6) ?? '' };
        }),
    until: async (predicate) => {
      while (!predicate(client)) {
        if (!reader || client.ended) return false;
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            client.ended = true;
            return predicate(client);
          }
          client.text += decoder.decode(chunk.value as Uint8Array, { stream: true });
        } catch {
          client.ended = true;
          return predicate(client);
        }
      }
      return true;
    },
    close: () => {
      controller.abort();
    },
  };
  return client;
}
