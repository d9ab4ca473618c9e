# dlixir: GET a URL with HTTPoison (hackney) or HTTPotion (ibrowse) asynchronously and write the
# body to a file, chunk by chunk as it arrives -- the seed's escript (`dlixir -l httpoison|httpotion
# [--once] -u URL -o OUT`), with the study's arguments:
#
#   dlixir LIB MODE URL OUT SINK
#     LIB   httpoison | httpotion (the library this build has; run.sh picks the build)
#     MODE  push: `stream_to: self()`: the library sends every chunk as a message as fast as it
#                 arrives, whatever the consumer's pace
#           pull: the original's `--once`: one message per stream_next (back-pressure):
#                 HTTPoison `async: :once` + HTTPoison.stream_next/1; HTTPotion
#                 `stream_to: {self(), :once}` + :ibrowse.stream_next/1 (ibrowse's
#                 {stream_to, {Pid, once}})
#     SINK  file: write OUT; null: write /dev/null
#
# The body goes to the file as a plain Elixir script writes it (File.open!/2, IO.binwrite/2 per
# chunk: the file is a process of its own, as in the original era's escripts; not :raw). Prints
# "bytes=N crc32=X" (the study's check; the CRC-32 is computed chunk by chunk, :erlang.crc32/2)
# and "chunks=N chunk_bytes_median=M chunk_bytes_max=X": how the body reached this process (the
# original saw 1,460 B chunks from HTTPoison, ~1 MB from HTTPotion).
defmodule Dlixir do
  def main([lib, mode, url, out, sink]) when mode in ["push", "pull"] do
    dest = if sink == "file", do: out, else: "/dev/null"
    file = File.open!(dest, [:write, :binary])
    acc = %{file: file, n: 0, crc: :erlang.crc32(<<>>), sizes: %{}}
    acc = Dlixir.Lib.get(lib, String.to_atom(mode), url, acc)
    :ok = File.close(file)
    IO.puts("bytes=#{acc.n} crc32=#{hex8(acc.crc)}")
    {chunks, median, max} = stats(acc.sizes)
    IO.puts("chunks=#{chunks} chunk_bytes_median=#{median} chunk_bytes_max=#{max}")
    IO.puts("finished!")
  end

  def main(_) do
    IO.puts(:stderr, "usage: dlixir httpoison|httpotion push|pull URL OUT file|null")
    System.halt(2)
  end

  # One chunk of the body: to the file, into the CRC and the size histogram.
  def chunk(acc, bin) do
    :ok = IO.binwrite(acc.file, bin)
    %{acc | n: acc.n + byte_size(bin), crc: :erlang.crc32(acc.crc, bin), sizes: Map.update(acc.sizes, byte_size(bin), 1, &(&1 + 1))}
  end

  # {chunks, median size (the lower median), largest size}.
  defp stats(sizes) when map_size(sizes) == 0, do: {0, 0, 0}

  defp stats(sizes) do
    sorted = Enum.sort(sizes)
    total = sorted |> Enum.map(&elem(&1, 1)) |> Enum.sum()
    half = div(total + 1, 2)

    {:median, m} =
      Enum.reduce_while(sorted, 0, fn {size, c}, seen ->
        if seen + c >= half, do: {:halt, {:median, size}}, else: {:cont, seen + c}
      end)

    {max, _} = List.last(sorted)
    {total, m, max}
  end

  defp hex8(crc), do: crc |> Integer.to_string(16) |> String.downcase() |> String.pad_leading(8, "0")
end
