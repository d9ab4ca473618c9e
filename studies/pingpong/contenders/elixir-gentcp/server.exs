# Ping-pong server in Elixir on plain OTP :gen_tcp: POST / with body "ping" answers "pong",
# anything else 400. One acceptor per scheduler, one Elixir process per connection, keep-alive.
# The request is parsed in Elixir (binary matching, the way cowboy does it, not the VM's http_bin
# packet parser of erlang-gentcp): the socket is in active-once mode, input is buffered until a
# whole head (CRLF CRLF) and then its Content-Length body are in, and every complete request in
# the buffer is answered (pipelining), the responses of one read written together.
# Usage: elixir server.exs PORT
defmodule PingPong do
  # A head longer than this without its blank line is refused (memory stays bounded).
  @max_head 16_384
  # Bodies larger than this are refused too (the study sends 4 bytes).
  @max_body 1_048_576
  # An idle keep-alive connection is closed after this (cowboy's idle_timeout, Node's 60 s here).
  @idle_ms 60_000

  @pong "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\npong"
  @bad "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nbad request"
  @bad_close "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 11\r\nConnection: close\r\n\r\nbad request"

  def main([port]) do
    {:ok, listen} =
      :gen_tcp.listen(String.to_integer(port), [
        :binary,
        ip: {127, 0, 0, 1},
        packet: :raw,
        active: false,
        reuseaddr: true,
        # The study opens up to 1000 connections at once (gen_tcp's default backlog is 5).
        backlog: 1024,
        nodelay: true
      ])

    # One acceptor per scheduler, so accepting 1000 connections at once is not serial.
    for _ <- 1..System.schedulers_online(), do: spawn(fn -> accept(listen) end)
    # SIGTERM makes the VM stop (init:stop/0); until then this process just holds the socket.
    Process.sleep(:infinity)
  end

  def main(_) do
    IO.puts(:stderr, "usage: elixir server.exs PORT")
    System.halt(2)
  end

  # Accepts one connection, hands accepting over to a fresh process, and serves the connection
  # in this one (so this process owns the socket: no controlling_process handover).
  defp accept(listen) do
    case :gen_tcp.accept(listen) do
      {:ok, sock} ->
        spawn(fn -> accept(listen) end)
        loop(sock, <<>>)

      {:error, _} ->
        # The listening socket is gone (the VM is stopping).
        :ok
    end
  end

  defp loop(sock, buf) do
    :ok = :inet.setopts(sock, active: :once)

    receive do
      {:tcp, ^sock, data} ->
        case serve(buf <> data, []) do
          {:more, rest, replies} ->
            send_replies(sock, replies)
            loop(sock, rest)

          {:close, replies} ->
            send_replies(sock, replies)
            :gen_tcp.close(sock)
        end

      {:tcp_closed, ^sock} ->
        :ok

      {:tcp_error, ^sock, _} ->
        :gen_tcp.close(sock)
    after
      @idle_ms -> :gen_tcp.close(sock)
    end
  end

  defp send_replies(_sock, []), do: :ok
  defp send_replies(sock, replies), do: :gen_tcp.send(sock, Enum.reverse(replies))

  # Answers every complete request at the front of `buf`. Returns the unparsed rest (a partial
  # request, kept for the next read) or :close, with the replies (newest first).
  defp serve(<<>>, replies), do: {:more, <<>>, replies}

  defp serve(buf, replies) do
    case :binary.match(buf, "\r\n\r\n") do
      :nomatch when byte_size(buf) > @max_head ->
        {:close, [@bad_close | replies]}

      :nomatch ->
        {:more, buf, replies}

      {pos, 4} ->
        <<head::binary-size(pos), _::binary-size(4), rest::binary>> = buf

        case parse_head(head) do
          {:ok, method, path, len, keep_alive} when len <= @max_body ->
            case rest do
              <<body::binary-size(len), next::binary>> ->
                reply = if method == "POST" and path == "/" and body == "ping", do: @pong, else: @bad

                if keep_alive,
                  do: serve(next, [reply | replies]),
                  else: {:close, [reply | replies]}

              _ ->
                # The body is not all in yet: keep the whole request for the next read.
                {:more, buf, replies}
            end

          _ ->
            # Malformed (or a body we will not read): answer 400 and close, as framing is lost.
            {:close, [@bad_close | replies]}
        end
    end
  end

  # The request line and the two headers that matter: Content-Length and Connection.
  defp parse_head(head) do
    [line | headers] = :binary.split(head, "\r\n", [:global])

    case :binary.split(line, " ", [:global]) do
      [method, path, "HTTP/1." <> minor] ->
        headers(headers, method, path, 0, minor != "0")

      _ ->
        :error
    end
  end

  defp headers([], method, path, len, keep_alive), do: {:ok, method, path, len, keep_alive}

  defp headers([h | t], method, path, len, keep_alive) do
    case :binary.split(h, ":") do
      [name, value] ->
        case String.downcase(name) do
          "content-length" ->
            case Integer.parse(String.trim(value)) do
              {n, ""} when n >= 0 -> headers(t, method, path, n, keep_alive)
              _ -> :error
            end

          "connection" ->
            case String.downcase(String.trim(value)) do
              "close" -> headers(t, method, path, len, false)
              "keep-alive" -> headers(t, method, path, len, true)
              _ -> headers(t, method, path, len, keep_alive)
            end

          # A chunked body cannot be framed by this server: refuse it (400, close).
          "transfer-encoding" ->
            :error

          _ ->
            headers(t, method, path, len, keep_alive)
        end

      _ ->
        :error
    end
  end
end

PingPong.main(System.argv())
