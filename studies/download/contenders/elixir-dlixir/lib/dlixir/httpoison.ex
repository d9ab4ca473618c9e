# HTTPoison (on hackney), as the seed used it: `stream_to: self()` for push, plus `async: :once`
# and HTTPoison.stream_next/1 for pull. HTTPoison's own defaults otherwise (recv_timeout 5 s per
# receive: the seed raised only HTTPotion's timeout). Works with HTTPoison 0.13 and 1.8.
defmodule Dlixir.Lib do
  def get("httpoison", mode, url, acc) do
    {:ok, _} = HTTPoison.start()
    opts = if mode == :pull, do: [stream_to: self(), async: :once], else: [stream_to: self()]
    {:ok, %HTTPoison.AsyncResponse{id: id} = resp} = HTTPoison.get(url, [], opts)
    # With :once, the status arrives without a stream_next; every later message needs one.
    loop(mode, resp, id, acc)
  end

  def get(lib, _, _, _), do: raise("this build has HTTPoison, not #{lib}")

  defp next(:pull, resp), do: {:ok, _} = HTTPoison.stream_next(resp)
  defp next(:push, _), do: :ok

  defp loop(mode, resp, id, acc) do
    receive do
      %HTTPoison.AsyncStatus{id: ^id, code: 200} ->
        next(mode, resp)
        loop(mode, resp, id, acc)

      %HTTPoison.AsyncStatus{id: ^id, code: code} ->
        raise "HTTP status #{code}"

      %HTTPoison.AsyncHeaders{id: ^id} ->
        next(mode, resp)
        loop(mode, resp, id, acc)

      %HTTPoison.AsyncChunk{id: ^id, chunk: chunk} ->
        acc = Dlixir.chunk(acc, chunk)
        next(mode, resp)
        loop(mode, resp, id, acc)

      %HTTPoison.AsyncEnd{id: ^id} ->
        acc

      %HTTPoison.Error{reason: reason} ->
        raise "HTTPoison: #{inspect(reason)}"
    end
  end
end
