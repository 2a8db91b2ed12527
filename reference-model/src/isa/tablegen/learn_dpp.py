from learn import *
F=Field
def run(cpu):
    res={}
    for form,mark,w1 in (('DPP16',0xFA,0xff0000e4|20),('DPP8',0xE9,0x00fac688|20),('SDWA',0xF9,0x06060600|20)):
        res['VOP1_'+form]=learn(cpu, range(256), 2, lambda op:[0x7E000000|op<<9|mark,w1&~0xff],
            [F('vdst',0,17,8,10,14), F('dsrc0',1,0,8,20,24)])
        flips(cpu,res['VOP1_'+form],2,[0xffffffff,0xff])
        res['VOP2_'+form]=learn(cpu, range(0x3e), 2, lambda op:[op<<25|mark,w1&~0xff],
            [F('vdst',0,17,8,10,14), F('dsrc0',1,0,8,20,24), F('vsrc1',0,9,8,30,34)])
        flips(cpu,res['VOP2_'+form],2,[0xffffffff,0xff])
        res['VOPC_'+form]=learn(cpu, range(256), 2, lambda op:[0x7C000000|op<<17|mark,w1&~0xff],
            [F('dsrc0',1,0,8,20,24), F('vsrc1',0,9,8,30,34)])
        flips(cpu,res['VOPC_'+form],2,[0xffffffff,0xff])
    return res
out={c:run(c) for c in ('gfx1013','gfx1030')}
json.dump(out,open('dpp_learn.json','w'),indent=0)
for c in out:
    for k,v in out[c].items(): print(c,k,len(v))
