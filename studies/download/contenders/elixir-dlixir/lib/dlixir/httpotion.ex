# HTTPotion (on ibrowse), as the seed used it: `stream_to: self()` for push; for pull (the
# original's `once`, which the seed's HTTPotion could not ask for directly) HTTPotion 3.1's
# `stream_to: {self(), :once}` (ibrowse's {stream_to, {Pid, once}}) and :ibrowse.stream_next/1,
# which ibrowse needs before the first message too. `timeout: :infinity`: HTTPotion's default
# 5 s is for the whole request (the seed had to raise it). ibrowse's defaults otherwise.
defmodule Dlixir.Lib do
  def get("httpotion", mode, url, acc) do
    {:ok, _} = HTTPotion.start()
    to = if mode == :pull, do: {self(), :once}, else: self()

    case HTTPotion.get(url, stream_to: to, timeout: :infinity) do
      %HTTPotion.AsyncResponse{id: id} ->
        next(mode, id)
        loop(mode, id, acc)

      %HTTPotion.ErrorResponse{message: m} ->
        raise "HTTPotion: #{m}"
    end
  end

  def get(lib, _, _, _), do: raise("this build has HTTPotion, not #{lib}")

  defp next(:pull, id), do: :ok = :ibrowse.stream_next(id)
  defp next(:push, _), do: :ok

  defp loop(mode, id, acc) do
    receive do
      %HTTPotion.AsyncHeaders{id: ^id, status_code: 200} ->
        next(mode, id)
        loop(mode, id, acc)

      %HTTPotion.AsyncHeaders{id: ^id, status_code: code} ->
        raise "HTTP status #{code}"

      %HTTPotion.AsyncChunk{id: ^id, chunk: {:error, why}} ->
        raise "HTTPotion: #{inspect(why)}"

      %HTTPotion.AsyncChunk{id: ^id, chunk: chunk} ->
        acc = Dlixir.chunk(acc, chunk)
        next(mode, id)
        loop(mode, id, acc)

      %HTTPotion.AsyncEnd{id: ^id} ->
        acc

      %HTTPotion.AsyncTimeout{id: ^id} ->
        raise "HTTPotion: timeout"
    end
  end
end
