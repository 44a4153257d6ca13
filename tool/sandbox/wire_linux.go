package sandbox

import (
	"encoding/json"
	"errors"

	"golang.org/x/sys/unix"
)

// maxMessage bounds one request (a command line and its environment).
const maxMessage = 4 << 20

// send writes one message on a SOCK_SEQPACKET socket, with fds as rights.
func send(fd int, v any, fds []int) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	return unix.Sendmsg(fd, b, oob, nil, 0)
}

// receive reads one request, into buf, and the fds that came with it.
func receive(fd int, buf []byte) (request, []int, error) {
	var req request
	b, fds, err := recvMessage(fd, buf)
	if err != nil {
		return req, nil, err
	}
	if err := json.Unmarshal(b, &req); err != nil || len(req.Argv) == 0 && req.Dial == 0 {
		for _, f := range fds {
			unix.Close(f)
		}
		return req, nil, errors.New("bad request")
	}
	return req, fds, nil
}

func recvMessage(fd int, buf []byte) ([]byte, []int, error) {
	oob := make([]byte, unix.CmsgSpace(4*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if n == 0 && oobn == 0 {
			return nil, nil, errors.New("closed")
		}
		var fds []int
		if oobn > 0 {
			msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
			if err == nil {
				for _, m := range msgs {
					if f, err := unix.ParseUnixRights(&m); err == nil {
						fds = append(fds, f...)
					}
				}
			}
		}
		return buf[:n], fds, nil
	}
}

// readReply reads one reply.
func readReply(fd int) (reply, error) {
	r, fds, err := readReplyFDs(fd)
	closeFDs(fds)
	return r, err
}

// readReplyFDs reads one reply and the fds that came with it.
func readReplyFDs(fd int) (reply, []int, error) {
	var r reply
	b, fds, err := recvMessage(fd, make([]byte, 64<<10))
	if err != nil {
		return r, nil, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		closeFDs(fds)
		return r, nil, err
	}
	return r, fds, nil
}
