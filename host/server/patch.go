package server

import (
	"context"

	"github.com/honmaster/masterserver/wire"
)

// patchRequest is what the client's patcher sends.
type patchRequest struct {
	Update         string `form:"update" doc:"sent by the patcher; not used"`
	Version        string `form:"version" doc:"the client's version; not used"`
	CurrentVersion string `form:"current_version" doc:"not used"`
	OS             string `form:"os,required" doc:"wac, mac, lac or linux (= lac)"`
	Arch           string `form:"arch,required" doc:"x86_64, i686, ..."`
	Cookie         string `form:"cookie" doc:"not checked"`
}

// patchEntry is index 0 of the patch information record.
type patchEntry struct {
	Version                string `php:"version"`
	OS                     string `php:"os"`
	Arch                   string `php:"arch"`
	URL                    string `php:"url"`
	URL2                   string `php:"url2"`
	LatestVersion          string `php:"latest_version"`
	LatestManifestChecksum string `php:"latest_manifest_checksum"`
	LatestManifestSize     string `php:"latest_manifest_size"`
}

// patchReply is the 5-entry patch information record.
type patchReply struct {
	Entry                   patchEntry `php:"0"`
	Version                 string     `php:"version"`
	CurrentVersion          string     `php:"current_version"`
	CurrentManifestChecksum string     `php:"current_manifest_checksum"`
	CurrentManifestSize     string     `php:"current_manifest_size"`
}

func (s *Server) patchInfo(_ context.Context, r *wire.Request) Response {
	var req patchRequest
	if err := r.Decode(&req); err != nil {
		return s.genericFail(err)
	}
	p, ok := s.conf().Patch(req.OS, req.Arch)
	if !ok {
		return phpReply(s.log, errorReply{Error: "no patch information for os " + req.OS + " arch " + req.Arch})
	}
	return phpReply(s.log, patchReply{
		Entry: patchEntry{Version: p.Version, OS: p.OS, Arch: p.Arch, URL: p.URL, URL2: p.URL2,
			LatestVersion: p.LatestVersion, LatestManifestChecksum: p.ManifestChecksum, LatestManifestSize: p.ManifestSize},
		Version: p.Version, CurrentVersion: p.LatestVersion,
		CurrentManifestChecksum: p.ManifestChecksum, CurrentManifestSize: p.ManifestSize,
	})
}
