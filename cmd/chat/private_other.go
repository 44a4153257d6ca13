//go:build !linux

package main

func keepEnvironPrivate() {}
