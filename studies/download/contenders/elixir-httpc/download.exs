# GET a URL with OTP's :httpc from Elixir in one of its three modes, write the body to OUT (or
# /dev/null), print bytes and CRC-32 (:erlang.crc32/2, incremental), then how the body arrived:
# the number of chunks (messages) and their median and largest size.
#   sync: the whole body as one binary (httpc's default: the body in memory)
#   push: [sync: false, stream: :self]: httpc sends every chunk as a message as fast as it
#         arrives (the original's HTTPoison/hackney `stream_to:` without `async: :once`)
#   pull: [sync: false, stream: {:self, :once}]: one chunk per :httpc.stream_next/1 (the
#         original's `once`: back-pressure)
# OTP only (inets): HTTPoison and HTTPotion come from hex.pm. Usage:
#   elixir download.exs sync|push|pull URL OUT SINK
defmodule Download do
  def main([mode, url, out, sink]) when mode in ["sync", "push", "pull"] do
    {:ok, _} = Application.ensure_all_started(:inets)
    dest = if sink == "file", do: out, else: "/dev/null"
    {:ok, f} = :file.open(String.to_charlist(dest), [:write, :raw, :binary])
    {n, crc, sizes} = get(String.to_atom(mode), String.to_charlist(url), f)
    :ok = :file.close(f)
    IO.puts("bytes=#{n} crc32=#{hex8(crc)}")
    {chunks, median, max} = stats(sizes)
    IO.puts("chunks=#{chunks} chunk_bytes_median=#{median} chunk_bytes_max=#{max}")
  end

  def main(_) do
    IO.puts(:stderr, "usage: elixir download.exs sync|push|pull URL OUT SINK")
    System.halt(2)
  end

  defp get(:sync, url, f) do
    {:ok, {{_, 200, _}, _headers, body}} =
      :httpc.request(:get, {url, []}, [timeout: :infinity], body_format: :binary)

    :ok = :file.write(f, body)
    {byte_size(body), :erlang.crc32(body), count(%{}, body)}
  end

  defp get(:push, url, f) do
    {:ok, ref} =
      :httpc.request(:get, {url, []}, [timeout: :infinity], sync: false, stream: :self)

    receive do
      {:http, {^ref, :stream_start, _headers}} -> :ok
      {:http, {^ref, {:error, why}}} -> raise "httpc: #{inspect(why)}"
    end

    push_loop(ref, f, 0, :erlang.crc32(<<>>), %{})
  end

  defp get(:pull, url, f) do
    {:ok, ref} =
      :httpc.request(:get, {url, []}, [timeout: :infinity], sync: false, stream: {:self, :once})

    pid =
      receive do
        {:http, {^ref, :stream_start, _headers, pid}} -> pid
        {:http, {^ref, {:error, why}}} -> raise "httpc: #{inspect(why)}"
      end

    :ok = :httpc.stream_next(pid)
    pull_loop(ref, pid, f, 0, :erlang.crc32(<<>>), %{})
  end

  defp push_loop(ref, f, n, crc, sizes) do
    receive do
      {:http, {^ref, :stream, bin}} ->
        :ok = :file.write(f, bin)
        push_loop(ref, f, n + byte_size(bin), :erlang.crc32(crc, bin), count(sizes, bin))

      {:http, {^ref, :stream_end, _headers}} ->
        {n, crc, sizes}

      {:http, {^ref, {:error, why}}} ->
        raise "httpc: #{inspect(why)}"
    end
  end

  defp pull_loop(ref, pid, f, n, crc, sizes) do
    receive do
      {:http, {^ref, :stream, bin}} ->
        :ok = :file.write(f, bin)
        :ok = :httpc.stream_next(pid)
        pull_loop(ref, pid, f, n + byte_size(bin), :erlang.crc32(crc, bin), count(sizes, bin))

      {:http, {^ref, :stream_end, _headers}} ->
        {n, crc, sizes}

      {:http, {^ref, {:error, why}}} ->
        raise "httpc: #{inspect(why)}"
    end
  end

  # Chunk sizes as a histogram (size => count): constant memory however many chunks arrive.
  defp count(sizes, bin), do: Map.update(sizes, byte_size(bin), 1, &(&1 + 1))

  # {chunks, median size (the lower median), largest size}.
  defp stats(sizes) when map_size(sizes) == 0, do: {0, 0, 0}

  defp stats(sizes) do
    sorted = Enum.sort(sizes)
    total = sorted |> Enum.map(&elem(&1, 1)) |> Enum.sum()
    half = div(total + 1, 2)

    median =
      Enum.reduce_while(sorted, 0, fn {size, c}, seen ->
        if seen + c >= half, do: {:halt, {:median, size}}, else: {:cont, seen + c}
      end)

    {:median, m} = median
    {max, _} = List.last(sorted)
    {total, m, max}
  end

  defp hex8(crc), do: crc |> Integer.to_string(16) |> String.downcase() |> String.pad_leading(8, "0")
end

Download.main(System.argv())
